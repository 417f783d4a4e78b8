import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Saving never replaces what is not a regular file, and loading never reads more than a saved
/// conversation of the model can hold, whatever sizes a file declares. Through the real model.
@Suite("Saved conversations: what is at the path, and what a file declares", .serialized)
struct ConversationFileSafetyTests {
    static let greedy = CompletionOptions.greedy(maximumResponseTokens: 8)

    static func conversation(_ model: LocalModel) async throws -> Conversation {
        let conversation = try Conversation(model: model)
        _ = try await conversation.respond(to: "Hello.", options: Self.greedy)
        return conversation
    }

    static func kind(at path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    @Test("Daemon #3: saving over a symbolic link, a folder or a FIFO is refused, naming it, and leaves it as it was")
    func saveRefusesWhatIsNotARegularFile() async throws {
        let model = try await TestModel.load()
        let conversation = try await Self.conversation(model)
        let directory = try TemporaryDirectory()
        // A link to a file the user keeps: neither the link nor its target may change.
        let target = directory.file("keep.txt")
        try Data("mine".utf8).write(to: target)
        let link = directory.file("link.llmconv")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let folder = directory.file("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        for (url, kind, expected) in [(link, "a symbolic link", S_IFLNK), (folder, "a folder", S_IFDIR),
                                       (fifo, "a FIFO (named pipe)", S_IFIFO)] {
            await #expect(throws: Conversation.Error.notRegularFile(path: url.path, kind: kind)) {
                try await conversation.save(to: url)
            }
            #expect(Self.kind(at: url.path) == expected, "\(url.lastPathComponent) changed")
        }
        #expect(try String(contentsOf: target, encoding: .utf8) == "mine")
        // No temporary file is left behind, and a regular file (or none) is still written.
        try await conversation.save(to: directory.file("saved.llmconv"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
                == ["fifo", "folder", "keep.txt", "link.llmconv", "saved.llmconv"])
        let message = Conversation.Error.notRegularFile(path: "/dev/null", kind: "a character device").errorDescription ?? ""
        #expect(message == "will not save over /dev/null: it is a character device, not a regular file")
    }

    @Test("Daemon #4: a 10 GB sparse file is refused from its declared sizes, without reading it")
    func loadChecksDeclaredSizesFirst() async throws {
        let model = try await TestModel.load()
        let directory = try TemporaryDirectory()
        let saved = directory.file("saved.llmconv")
        try await Self.conversation(model).save(to: saved)
        let real = try Data(contentsOf: saved)
        let headerLength = real[12..<20].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }

        /// A sparse file of `size` bytes that starts with `head`.
        func sparse(_ name: String, head: Data, size: UInt64) throws -> URL {
            let url = directory.file(name)
            try head.write(to: url)
            #expect(truncate(url.path, off_t(size)) == 0)
            return url
        }
        func littleEndian(_ value: UInt64) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
        let tenGigabytes: UInt64 = 10 << 30

        // A header that claims 10 GB.
        let hugeHeader = try sparse("huge-header.llmconv", head: real.prefix(12) + littleEndian(tenGigabytes - 40), size: tenGigabytes)
        // The real header, then cache data declared to fill 10 GB (sizes that add up to the file's).
        let stateLength = tenGigabytes - 32 - headerLength
        let hugeState = try sparse("huge-state.llmconv", head: real.prefix(20 + Int(headerLength)) + littleEndian(stateLength),
                                   size: tenGigabytes)
        let before = Self.maximumResidentBytes()
        for (url, word) in [(hugeHeader, "header"), (hugeState, "cache data")] {
            await #expect {
                _ = try await Conversation(restoringFrom: url, model: model)
            } throws: { error in
                guard case Conversation.Error.invalidFile(let path, let reason) = error else { return false }
                return path == url.path && reason.contains(word)
            }
        }
        // Nothing like the declared 10 GB was read into memory (peak resident size, in bytes).
        #expect(Self.maximumResidentBytes() - before < 256 << 20)
        #expect(model.maximumCacheStateBytes < Int(stateLength))
    }

    @Test("Daemon #4, #11: /dev/zero and a folder are named for what they are, not 'no permission'")
    func loadNamesWhatIsNotAFile() async throws {
        let model = try await TestModel.load()
        let conversation = try await Self.conversation(model)
        let directory = try TemporaryDirectory()
        for (url, kind) in [(URL(filePath: "/dev/zero"), "a character device"), (directory.url, "a folder")] {
            await #expect(throws: Conversation.Error.invalidFile(path: url.path, reason: "it is \(kind), not a regular file")) {
                try await conversation.load(from: url)
            }
        }
        #expect(await conversation.turnCount == 1)
    }

    /// The process's peak resident set (`ru_maxrss`), in bytes.
    static func maximumResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }
}
