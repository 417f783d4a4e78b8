/// Which requests one step decodes on a model with LoRA adapters. llama.cpp applies adapters to
/// a whole context (`llama_set_adapters_lora`), so a batch decodes with one set of scales:
/// requests with the same scales batch together, and requests with other scales take turns with
/// them, a step each, the group whose request waited longest first.
struct AdapterTurn {
    /// The scales this step decodes with; nil: the model has no adapters.
    let scales: [Float]?
    /// The slots that decode this step; nil: all that have work.
    let members: Set<Int>?

    /// Whether slot `index` decodes this step.
    func includes(_ index: Int) -> Bool { members?.contains(index) ?? true }
}

extension BatchScheduler {
    /// This step's turn (see ``AdapterTurn``).
    func adapterTurn() -> AdapterTurn {
        guard !context.model.adapters.isEmpty else { return AdapterTurn(scales: nil, members: nil) }
        let working = slots.indices.filter { index in
            slots[index].generation.map { $0.pendingToken != nil || $0.hasPromptLeft } ?? false
        }
        guard let first = working.min(by: { slots[$0].lastStep < slots[$1].lastStep }) else {
            return AdapterTurn(scales: nil, members: nil)
        }
        let scales = slots[first].adapterScales
        let members = working.filter { slots[$0].adapterScales == scales }
        return AdapterTurn(scales: scales, members: members.count == working.count ? nil : Set(members))
    }
}
