import Foundation
import LocalLLMKit

/// `llmkit info` of a LoRA adapter or a control vector: what it changes, read from its header,
/// and with `-m MODEL` whether it fits that model (checked as loading checks it).
struct AdapterReport: Encodable {
    let path: String
    let fileSize: Int64
    /// `lora` or `control-vector`.
    let kind: String
    let architecture: String?
    /// A LoRA adapter's `adapter.lora.alpha`.
    let alpha: Double?
    /// A LoRA adapter's ranks (usually one).
    let ranks: [Int]
    /// What it adapts in each layer (`attn_q.weight`…), or `direction` for a control vector.
    let targets: [String]
    /// The layers it changes.
    let layers: [Int]
    /// A control vector's width (the model's embedding length it needs).
    let width: Int?
    let tensorCount: Int
    let parameterCount: Int64
    /// The model it was checked against (`-m`), and what keeps it from applying there.
    let model: String?
    let problem: String?

    init(file: GGUFFile, kind: GGUFFile.AdapterKind, model: URL?) {
        path = file.url.path
        fileSize = file.fileSize
        architecture = file.architecture ?? file.metadata["controlvector.model_hint"]?.stringValue
        tensorCount = file.tensorCount
        parameterCount = file.parameterCount
        var layers = Set<Int>(), targets = Set<String>(), ranks = Set<Int>()
        switch kind {
        case .lora:
            self.kind = "lora"
            alpha = file.metadata["adapter.lora.alpha"]?.doubleValue
            width = nil
            for tensor in file.tensors where tensor.name.hasSuffix(".lora_a") {
                let target = String(tensor.name.dropLast(".lora_a".count))
                let parts = target.split(separator: ".", maxSplits: 2)
                if parts.count == 3, parts[0] == "blk", let layer = Int(parts[1]) {
                    layers.insert(layer)
                    targets.insert(String(parts[2]))
                } else {
                    targets.insert(target)
                }
                if tensor.dimensions.count > 1 { ranks.insert(Int(tensor.dimensions[1])) }
            }
        case .controlVector:
            self.kind = "control-vector"
            alpha = nil
            width = file.tensors.first.map { Int($0.dimensions.first ?? 0) }
            targets = ["direction"]
            layers = Set(file.tensors.compactMap { Int($0.name.dropFirst("direction.".count)) })
        }
        self.layers = layers.sorted()
        self.targets = targets.sorted()
        self.ranks = ranks.sorted()
        self.model = model?.path
        do {
            switch (kind, model) {
            case (_, nil): break
            case (.lora, let model?): try LocalModel.checkAdapter(.init(url: file.url), forModelAt: model)
            case (.controlVector, let model?): try LocalModel.checkControlVector(.init(url: file.url), forModelAt: model)
            }
            problem = nil
        } catch {
            problem = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        }
    }

    /// The lines `llmkit info` prints.
    var lines: [(String, String)] {
        var lines = [
            ("file", path),
            ("size", "\(fileSize) bytes (\(String(format: "%.2f", Double(fileSize) / 1_048_576)) MiB)"),
            ("kind", kind == "lora" ? "LoRA adapter (--lora FILE, --lora-scaled FILE:SCALE)"
                                    : "control vector (--control-vector FILE, --control-vector-scaled FILE:SCALE)"),
            ("architecture", architecture ?? "unknown"),
        ]
        if kind == "lora" {
            lines.append(("alpha", alpha.map { "\($0)" } ?? "none (llama.cpp then scales by 1)"))
            lines.append(("rank", ranks.isEmpty ? "none" : ranks.map(String.init).joined(separator: ", ")))
        } else {
            lines.append(("width", width.map(String.init) ?? "unknown"))
        }
        lines.append(("adapts", targets.joined(separator: ", ")))
        lines.append(("layers", Self.ranges(layers)))
        lines.append(("tensors", "\(tensorCount) (\(parameterCount) parameters)"))
        if let model { lines.append(("fits \(URL(filePath: model).lastPathComponent)", problem.map { "no: \($0)" } ?? "yes")) }
        return lines
    }

    /// `[1, 2, 3, 7]` as `1-3, 7`.
    private static func ranges(_ numbers: [Int]) -> String {
        guard !numbers.isEmpty else { return "none" }
        var parts: [String] = [], start = numbers[0], previous = numbers[0]
        for number in numbers.dropFirst() + [Int.min] {
            if number == previous + 1 { previous = number; continue }
            parts.append(start == previous ? "\(start)" : "\(start)-\(previous)")
            (start, previous) = (number, number)
        }
        return parts.joined(separator: ", ")
    }
}
