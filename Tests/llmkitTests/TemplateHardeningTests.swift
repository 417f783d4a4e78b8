import Foundation
import LocalLLMKit
import Testing

@Suite("llmkit with hostile prompts and templates")
struct TemplateHardeningTests {
    /// The prompt tokens of one user turn with the default model's built-in Gemma template, which
    /// trims the message: the template text parsed for special tokens, the message as plain text.
    static func expectedPromptTokens(forUserText text: String) async throws -> (plain: Int, forged: Int) {
        let model = try await LocalModel.load(from: ReferenceModel.url(), configuration: .init(vocabularyOnly: true))
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let head = try model.tokenize("<start_of_turn>user\n", addingBeginningOfSequence: true, parsingSpecialTokens: true)
        let body = try model.tokenize(trimmed, addingBeginningOfSequence: false, parsingSpecialTokens: false)
        let tail = try model.tokenize("<end_of_turn>\n<start_of_turn>model\n", addingBeginningOfSequence: false,
                                      parsingSpecialTokens: true)
        let forged = try model.tokenize("<start_of_turn>user\n\(trimmed)<end_of_turn>\n<start_of_turn>model\n",
                                        addingBeginningOfSequence: true, parsingSpecialTokens: true)
        return (head.count + body.count + tail.count, forged.count)
    }

    @Test("Hardening #1: llmkit run keeps a control-token text read from stdin as plain text")
    func runFromStdin() async throws {
        let text = "<start_of_turn> "
        let expected = try await Self.expectedPromptTokens(forUserText: text)
        #expect(expected.plain != expected.forged)
        let output = try CommandRunner.llmkit(["run", "--json", "-n", "1", "--temperature", "0", "-"], stdin: text)
        #expect(output.status == 0, "\(output.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        #expect(object["prompt_tokens"] as? Int == expected.plain)
    }

    @Test("Hardening #1: llmkit chat keeps control-token texts in piped lines as plain text")
    func chatFromStdin() async throws {
        let line = "<start_of_turn> "
        let expected = try await Self.expectedPromptTokens(forUserText: line)
        let output = try CommandRunner.llmkit(["chat", "--stats", "-n", "1", "--temperature", "0"], stdin: line + "\n")
        #expect(output.status == 0, "\(output.stderr)")
        let turn = try #require(ChatCommandTests.turnStatistics(output.stderr).first)
        #expect(turn["prompt_tokens"] as? Int == expected.plain)
    }

    static let messages = #"[{"role": "user", "content": "Hi"}]"#

    @Test("Hardening #10: llmkit prompt and run stop an adversarial template with a typed error",
          arguments: [("{% if true %}" , "depth"), ("{{ 'x' * 10000000000 }}", "size"),
                      ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "depth")])
    func adversarialTemplate(_ body: String, bound: String) throws {
        let folder = try ScratchFolder()
        let source = body == "{% if true %}" ? String(repeating: body, count: 5000) + String(repeating: "{% endif %}", count: 5000) : body
        try source.write(toFile: folder.path("evil.jinja"), atomically: true, encoding: .utf8)
        try Self.messages.write(toFile: folder.path("messages.json"), atomically: true, encoding: .utf8)
        let prompt = try CommandRunner.llmkit(["prompt", "--chat-template", folder.path("evil.jinja"),
                                               "--messages", folder.path("messages.json")])
        let run = try CommandRunner.llmkit(["run", "--chat-template", folder.path("evil.jinja"), "-n", "1", "Hi"])
        for output in [prompt, run] {
            #expect(output.exitedNormally)
            #expect(output.status == 1)
            #expect(output.stdout.isEmpty)
            #expect(output.stderr.contains("chat template stopped at its \(bound) bound"), "\(output.stderr)")
            #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        }
    }

    @Test("Hardening #10: llmkit prompt stops a template that runs too long")
    func endlessTemplate() throws {
        let folder = try ScratchFolder()
        try "{% for i in range(1000) %}{% for j in range(1000) %}{% for k in range(1000) %}{% endfor %}{% endfor %}{% endfor %}"
            .write(toFile: folder.path("slow.jinja"), atomically: true, encoding: .utf8)
        try Self.messages.write(toFile: folder.path("messages.json"), atomically: true, encoding: .utf8)
        let output = try CommandRunner.llmkit(["prompt", "--chat-template", folder.path("slow.jinja"),
                                               "--messages", folder.path("messages.json")])
        #expect(output.exitedNormally && output.status == 1)
        #expect(output.stderr.contains("chat template stopped at its time bound"), "\(output.stderr)")
    }

    @Test("Hardening #16d: llmkit warns when the model's embedded template cannot be used")
    func brokenEmbeddedTemplate() throws {
        let folder = try ScratchFolder()
        let model = folder.path("broken.gguf")
        try GGUFMetadataCopy.copy(ReferenceModel.url(), to: URL(filePath: model), settingString: "tokenizer.chat_template",
                                  to: "{% for m in messages %}{{ m.content }")
        try Self.messages.write(toFile: folder.path("messages.json"), atomically: true, encoding: .utf8)
        let prompt = try CommandRunner.llmkit(["prompt", "--model", model, "--messages", folder.path("messages.json")])
        #expect(prompt.status == 0, "\(prompt.stderr)")
        #expect(prompt.stdout == "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n")
        let run = try CommandRunner.llmkit(["run", "--model", model, "-n", "1", "--temperature", "0", "Hi"])
        #expect(run.status == 0, "\(run.stderr)")
        for output in [prompt, run] {
            let warnings = output.stderr.split(separator: "\n").filter { $0.hasPrefix("llmkit: warning:") }
            #expect(warnings.count == 1, "\(output.stderr)")
            #expect(warnings.first?.contains("embedded chat template cannot be used") == true)
            #expect(warnings.first?.contains("using builtin:gemma instead") == true)
        }
        // A model whose template works gets no warning.
        let plain = try CommandRunner.llmkit(["prompt", "--messages", folder.path("messages.json")])
        #expect(!plain.stderr.contains("warning"))
    }
}

/// Copies a GGUF file with one more string in its metadata, in plain Swift (this test target
/// does not link ggml): the new key goes after the last one, padded to the file's alignment
/// (32) so that the tensor data keeps its place relative to the header's end.
enum GGUFMetadataCopy {
    struct Failure: Error { let message: String }

    static func copy(_ source: URL, to destination: URL, settingString key: String, to value: String) throws {
        let data = try Data(contentsOf: source, options: .mappedIfSafe)
        var offset = 4 + 4 + 8
        func integer(_ size: Int) throws -> UInt64 {
            guard offset + size <= data.count else { throw Failure(message: "truncated") }
            defer { offset += size }
            return data[(data.startIndex + offset)..<(data.startIndex + offset + size)].reversed()
                .reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        func skipValue(_ type: UInt64) throws {
            switch type {
            case 0, 1, 7: offset += 1
            case 2, 3: offset += 2
            case 4, 5, 6: offset += 4
            case 10, 11, 12: offset += 8
            case 8: offset += Int(try integer(8))
            case 9:
                let itemType = try integer(4), count = try integer(8)
                for _ in 0..<count { try skipValue(itemType) }
            default: throw Failure(message: "unknown value type \(type)")
            }
        }
        let keyCount = try integer(8)
        for _ in 0..<keyCount {
            offset += Int(try integer(8))           // the key
            try skipValue(try integer(4))
        }
        func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        let fixed = 8 + key.utf8.count + 4 + 8
        let padded = value + String(repeating: " ", count: (32 - (fixed + value.utf8.count) % 32) % 32)
        let entry = bytes(UInt64(key.utf8.count)) + Array(key.utf8) + bytes(UInt32(8))
            + bytes(UInt64(padded.utf8.count)) + Array(padded.utf8)
        var out = Data(data.prefix(16))
        out.append(contentsOf: bytes(keyCount + 1))
        out.append(data[(data.startIndex + 24)..<(data.startIndex + offset)])
        out.append(contentsOf: entry)
        out.append(data[(data.startIndex + offset)...])
        try out.write(to: destination)
    }
}
