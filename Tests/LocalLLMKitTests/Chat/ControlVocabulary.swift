import CLlama
import Foundation
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// A copy of the test model whose vocabulary also has, as control tokens, the control strings of
/// every template family (`<|im_start|>`, `[INST]`, `<｜User｜>`, `<think>`…): Gemma's unused
/// control tokens are renamed to them. With it, each family's own markers are real control
/// tokens, as with that family's model.
enum ControlVocabulary {
    /// The strings that look like control tokens in the template sources.
    static func harvestedStrings() throws -> [String] {
        let patterns = [#"<\|[^|<>\s]{1,40}\|>"#, #"<｜[^｜<>]{1,40}｜>"#, #"</?[A-Za-z_][A-Za-z0-9_:]{0,30}>"#,
                        #"\[/?[A-Z][A-Z_]{1,30}\]"#, #"<\|[a-z_]{1,30}>"#, #"<[a-z_]{1,30}\|>"#]
        var found = Set<String>()
        for name in try TestTemplates.all() {
            let source = try TestTemplates.source(name)
            for pattern in patterns {
                let expression = try NSRegularExpression(pattern: pattern)
                for match in expression.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                    if let range = Range(match.range, in: source) { found.insert(String(source[range])) }
                }
            }
        }
        return found.sorted()
    }

    /// The vocabulary-only model, built once per test process (its file is deleted once loaded).
    static func model() async throws -> LocalModel {
        try await shared.value
    }

    private static let shared = Task<LocalModel, any Error> {
        let directory = try TemporaryDirectory()
        let destination = directory.file("control.gguf")
        try write(from: TestModel.url(), to: destination, adding: harvestedStrings())
        return try await LocalModel.load(from: destination, configuration: .init(vocabularyOnly: true))
    }

    private struct Failure: Error { let message: String }

    private static func write(from source: URL, to destination: URL, adding strings: [String]) throws {
        guard let context = gguf_init_from_file(source.path, gguf_init_params(no_alloc: true, ctx: nil)) else {
            throw Failure(message: "cannot read \(source.path)")
        }
        defer { gguf_free(context) }
        let key = gguf_find_key(context, "tokenizer.ggml.tokens")
        var tokens = (0..<gguf_get_arr_n(context, key)).map { String(cString: gguf_get_arr_str(context, key, $0)) }
        let dataOffset = UInt64(gguf_get_data_offset(context))
        let existing = Set(tokens)
        let unused = tokens.indices.filter { tokens[$0].hasPrefix("<unused") }
        let added = strings.filter { !existing.contains($0) }
        guard added.count <= unused.count else { throw Failure(message: "not enough unused tokens") }
        for (index, text) in zip(unused, added) { tokens[index] = text }
        var pointers = tokens.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { texts in
                gguf_set_arr_str(context, "tokenizer.ggml.tokens", texts.baseAddress, texts.count)
            }
        }
        guard gguf_write_to_file(context, destination.path, true) else {
            throw Failure(message: "cannot write \(destination.path)")
        }
        // The tensor data follows unchanged, so that the file is whole.
        let input = try FileHandle(forReadingFrom: source)
        let output = try FileHandle(forWritingTo: destination)
        defer { try? input.close(); try? output.close() }
        try input.seek(toOffset: dataOffset)
        try output.seekToEnd()
        while let chunk = try input.read(upToCount: 8 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }
}
