import Foundation
import LocalLLMKit

/// `llmkit info`: a GGUF file's metadata, read from its header without loading the weights.
enum InfoCommand {
    static let spec = CommandSpec(
        name: "info",
        usage: "usage: llmkit info [PATH] [--json] [--all]   (or llmkit info ADAPTER [-m MODEL])",
        help: """
        Show a GGUF file's metadata without loading its weights, and whether llama.cpp
        can load it (exit status 1 when it cannot). For a LoRA adapter or a control vector:
        what it changes, and with -m MODEL whether it fits that model (exit status 1 when not).

          PATH       a GGUF file, or a library id or name (default: $LLMKIT_MODEL, else the bootstrap's model)
          -m, --model MODEL  with an adapter or control vector as PATH: the model to check it against
          --json     print one JSON object
          --all      list every metadata key (long arrays are summarized)
          --mmproj FILE  the projector to describe (default: an mmproj*.gguf beside the model);
                     --no-mmproj: none
          -h, --help show this help
        The projector line says which projector the model would load, and whether it takes
        images and audio.
        """,
        valueOptions: ["--model", "--mmproj"],
        flagOptions: ["--json", "--all", "--no-mmproj"],
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let url: URL
        if let name = arguments.positionals.first ?? arguments.value("--model") {
            url = try await ModelOptions.locate(name)
        } else {
            url = try LocalModel.defaultModelURL()
        }
        let file = try GGUFFile(contentsOf: url)
        if let kind = file.adapterKind {
            var model: URL?
            if !arguments.positionals.isEmpty, let name = arguments.value("--model") { model = try await ModelOptions.locate(name) }
            return try describe(AdapterReport(file: file, kind: kind, model: model), json: arguments.has("--json"))
        }
        // The same check as loading: a header that llama.cpp would abort on is reported
        // (after the metadata, which helps to see why) and makes info exit 1.
        let problem = file.loadabilityProblem
        var configuration = LocalModel.Configuration()
        try MediaFlags.configure(&configuration, arguments)
        let projector = LocalModel.projector(forModelAt: url, configuration: configuration)
        if arguments.has("--json") {
            try Console.printJSON(InfoReport(file: file, problem: problem, projector: projector))
            if let problem { throw problem }
            return .success
        }
        var lines: [(String, String)] = [
            ("file", file.url.path),
            ("size", "\(file.fileSize) bytes (\(String(format: "%.2f", Double(file.fileSize) / 1_048_576)) MiB)"),
            ("gguf version", "\(file.version)"),
            ("architecture", file.architecture ?? "unknown"),
            ("name", file.name ?? "unknown"),
            ("parameters", "\(file.parameterCount) (\(String(format: "%.2f", Double(file.parameterCount) / 1e6)) M)"),
            ("quantization", file.quantization ?? "unknown"),
            ("training context", file.trainingContextLength.map(String.init) ?? "unknown"),
            ("chat template", file.hasChatTemplate ? "embedded" : "none"),
            ("tensors", "\(file.tensorCount)"),
            ("metadata keys", "\(file.metadata.count)"),
            ("loadable", problem == nil ? "yes" : "no"),
            ("generates text", file.generationProblem.map { "no: \($0) (it embeds: llmkit embed)" } ?? "yes"),
        ]
        let projectorLine: String = if let projector {
            "\(projector.url.path) (takes \(Self.kinds(projector)))"
        } else {
            "none (no mmproj*.gguf beside it: text only)"
        }
        lines.append(("projector", projectorLine))
        lines += ComputeDevice.all.map { ("device", DeviceLine.describe($0)) }
        if arguments.has("--all") {
            lines += file.metadata.keys.sorted().map { ($0, file.metadata[$0]!.description) }
        }
        Console.printFields(lines)
        if let problem { throw problem }
        return .success
    }

    /// Prints an adapter's report; exit status 1 when it does not fit the model it was checked against.
    private static func describe(_ report: AdapterReport, json: Bool) throws -> ExitCode {
        if json {
            try Console.printJSON(report)
        } else {
            Console.printFields(report.lines)
        }
        return report.problem == nil ? .success : .failure
    }

    /// What a projector takes, in words.
    private static func kinds(_ projector: (url: URL, images: Bool, audio: Bool)) -> String {
        [projector.images ? "images" : nil, projector.audio ? "audio" : nil].compactMap { $0 }.joined(separator: " and ")
    }
}

/// The JSON object that `llmkit info --json` prints.
struct InfoReport: Encodable {
    let path: String
    let fileSize: Int64
    let ggufVersion: Int
    let architecture: String?
    let name: String?
    let parameterCount: Int64
    let quantization: String?
    let trainingContextLength: Int?
    let hasChatTemplate: Bool
    let tensorCount: Int
    let metadata: [String: GGUFValue]
    let loadable: Bool
    let loadabilityProblem: String?
    let generationProblem: String?
    let devices = ComputeDevice.all
    let projector: ProjectorReport?

    /// The projector the model would load: its file, and whether it takes images and audio.
    struct ProjectorReport: Encodable {
        let path: String
        let images: Bool
        let audio: Bool
    }

    init(file: GGUFFile, problem: GGUFFile.Error?, projector: (url: URL, images: Bool, audio: Bool)?) {
        self.projector = projector.map { ProjectorReport(path: $0.url.path, images: $0.images, audio: $0.audio) }
        path = file.url.path
        fileSize = file.fileSize
        ggufVersion = file.version
        architecture = file.architecture
        name = file.name
        parameterCount = file.parameterCount
        quantization = file.quantization
        trainingContextLength = file.trainingContextLength
        hasChatTemplate = file.hasChatTemplate
        tensorCount = file.tensorCount
        metadata = file.metadata
        loadable = problem == nil
        loadabilityProblem = problem?.localizedDescription
        generationProblem = file.generationProblem
    }
}
