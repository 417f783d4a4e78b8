extension GGUFFile {
    /// What a GGUF file that is not a model holds, for a file that changes a model's output.
    public enum AdapterKind: Sendable, Equatable {
        /// A LoRA adapter (`general.type` `adapter`, `adapter.type` `lora`).
        case lora
        /// A control vector: every tensor a `direction.LAYER`.
        case controlVector
    }

    /// Whether the file is a LoRA adapter or a control vector, rather than a model; nil for a model.
    public var adapterKind: AdapterKind? {
        if metadata["general.type"]?.stringValue == "adapter" && metadata["adapter.type"]?.stringValue == "lora" { return .lora }
        if !tensors.isEmpty, tensors.allSatisfy({ $0.name.hasPrefix("direction.") }) { return .controlVector }
        return nil
    }
}
