/// Which requests one step decodes on a model with LoRA adapters. llama.cpp applies adapters to
/// a whole context (`llama_set_adapters_lora`), so a batch decodes with one set of scales:
/// requests with the same scales batch together, and requests with other scales take turns with
/// them. A turn lasts up to ``BatchScheduler/adapterTurnSteps`` steps (or until its group has no
/// work), then the group whose request waited longest goes next: each change of scales makes
/// llama.cpp plan its compute graph again, so changing at every step cost more than a third of
/// the throughput of two groups (docs/PERFORMANCE.md).
struct AdapterTurn {
    /// The scales this step decodes with; nil: the model has no adapters.
    let scales: [Float]?
    /// The slots that decode this step; nil: all that have work.
    let members: Set<Int>?

    /// Whether slot `index` decodes this step.
    func includes(_ index: Int) -> Bool { members?.contains(index) ?? true }
}

extension BatchScheduler {
    /// The most steps one group of adapter scales decodes while others wait.
    static let adapterTurnSteps = 16

    /// This step's turn (see ``AdapterTurn``).
    func adapterTurn() -> AdapterTurn {
        guard !context.model.adapters.isEmpty else { return AdapterTurn(scales: nil, members: nil) }
        let working = slots.indices.filter { index in
            slots[index].generation.map { $0.pendingToken != nil || $0.hasPromptLeft } ?? false
        }
        var scales: [Float]
        if let current = turn.scales, turn.steps < Self.adapterTurnSteps,
           working.contains(where: { slots[$0].adapterScales == current }) {
            scales = current
            turn.steps += 1
        } else {
            // The group that waited longest: another than the one whose turn ended, when there is one.
            let others = working.filter { slots[$0].adapterScales != turn.scales }
            guard let first = (others.isEmpty ? working : others).min(by: { slots[$0].lastStep < slots[$1].lastStep }) else {
                return AdapterTurn(scales: nil, members: nil)
            }
            scales = slots[first].adapterScales
            turn = (scales, 1)
        }
        let members = working.filter { slots[$0].adapterScales == scales }
        return AdapterTurn(scales: scales, members: members.count == working.count ? nil : Set(members))
    }
}
