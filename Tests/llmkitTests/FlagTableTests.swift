import Foundation
import LocalLLMKit
import Testing

/// The flags are declared once (`Flag`), and what a command accepts, documents and completes
/// comes from those declarations: these checks fail where they disagree.
@Suite("Each flag declared once")
struct FlagTableTests {
    /// Each command's options, as `llmkit completion bash` lists them (from the command's spec).
    static func completedOptions() throws -> [String: [String]] {
        let script = try CommandRunner.llmkit(["completion", "bash"]).stdout
        var options: [String: [String]] = [:]
        for line in script.split(separator: "\n") {
            // `        run) options='--a --b'; values='--a' ;;`
            guard let close = line.firstIndex(of: ")"), let start = line.range(of: "options='") else { continue }
            let names = line[line.startIndex..<close].trimmingCharacters(in: .whitespaces).split(separator: "|").map(String.init)
            guard let name = names.first, !name.contains("*") else { continue }
            let list = line[start.upperBound...].prefix { $0 != "'" }
            options[name] = list.split(separator: " ").map(String.init)
        }
        return options
    }

    @Test("every option a command accepts is in its --help")
    func acceptedOptionsAreDocumented() throws {
        let commands = try Self.completedOptions()
        #expect(commands.count >= 15, "\(commands.keys.sorted())")
        for (command, options) in commands {
            let help = try CommandRunner.llmkit([command, "--help"]).stdout
            for option in options where option != "--help" && option != "--format" {
                let pattern = try Regex("(^|[\\s,(`])" + NSRegularExpression.escapedPattern(for: option) + "([\\s,=);:`]|$)")
                #expect(help.contains(pattern), "\(command) accepts \(option) but its --help does not name it")
            }
        }
    }

    @Test("--typical-p reaches the sampler, and its alias and its errors name it")
    func typicalP() async throws {
        let model = try ReferenceModel.url()
        let prompt = "The best thing about the sea is"
        func run(_ flags: [String]) throws -> CommandRunner.Output {
            try CommandRunner.llmkit(["run", "-m", model.path, "--raw", "-n", "16", "--temperature", "1", "--seed", "7"] + flags + [prompt])
        }
        let typical = try run(["--typical-p", "0.2"])
        #expect(typical.status == 0, "\(typical.stderr)")
        #expect(try run(["--typical", "0.2"]).stdout == typical.stdout)
        // The library with the same request gives the same text: the flag set the option.
        let loaded = try await LocalModel.load(from: model, configuration: .init(contextLength: 4096))
        let options = CompletionOptions(maximumResponseTokens: 16, sampling: .init(temperature: 1, seed: 7, typicalP: 0.2))
        #expect(try await loaded.complete(prompt, options: options).text == typical.stdout)
        let bad = try run(["--typical-p", "2"])
        #expect(bad.status == 2 && bad.stderr.contains("--typical-p"), "\(bad.stderr)")
    }
}
