import Foundation
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Files and libraries for the model library's tests.
enum LibraryFixtures {
    /// The SHA-256 of the reference model (Gemma 3 270M).
    static let gemmaSHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"

    /// Writes a small valid GGUF file (one 4 MiB tensor) named `name`.
    @discardableResult
    static func smallModel(in folder: URL, name: String = "tiny.gguf", title: String = "Tiny Test Model") throws -> URL {
        var builder = GGUFBuilder()
        builder.keyValues.append(("general.name", .string(title)))
        builder.tensors = [.init(name: "weights", dimensions: [1 << 20], offset: 0)]
        builder.dataBytes = 4 << 20
        let url = folder.appending(path: name)
        try builder.write(to: url)
        return url
    }

    /// A scratch folder whose `served` subfolder `populate` fills (it gets the scratch folder and
    /// `served`), and the 127.0.0.1 download server that serves it.
    static func servedFolder(_ populate: (_ folder: TemporaryDirectory, _ served: URL) throws -> Void) throws
        -> (folder: TemporaryDirectory, served: URL, server: DownloadServer) {
        let folder = try TemporaryDirectory()
        let served = folder.file("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try populate(folder, served)
        return (folder, served, try DownloadServer(serving: served))
    }

    /// A library in `folder` whose environment finds no Hugging Face or Ollama cache
    /// unless `environment` names one.
    static func library(in folder: URL, environment: [String: String] = [:],
                        freeSpace: @escaping @Sendable (URL) -> Int64? = ModelLibrary.volumeFreeSpace) -> ModelLibrary {
        let empty = folder.appending(path: "no-caches").path
        let base = ["HOME": empty, "HF_HUB_CACHE": empty + "/hf", "OLLAMA_MODELS": empty + "/ollama",
                    "LLMKIT_CACHE": empty + "/cache"]     // no bootstrap default model either
        return ModelLibrary(root: folder.appending(path: "library"), environment: base.merging(environment) { $1 },
                            freeSpace: freeSpace, transport: URLSessionTransport())
    }

    /// The SHA-256 that `sha256sum` (coreutils) computes, to check ours against.
    static func coreutilsSHA256(of url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/sha256sum")
        process.arguments = [url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }
}
