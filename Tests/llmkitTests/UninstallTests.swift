import Foundation
import Testing

/// `make uninstall` (scripts/uninstall) removes what the bootstraps and `make install` put into a
/// prefix, as listed in the real install's manifest, and nothing else.
@Suite("make uninstall")
struct UninstallTests {
    /// The repository's root, from this file's path.
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("every file of the bootstrap's manifest and llmkit go; other files and paths outside the prefix stay")
    func removesOnlyListedFiles() throws {
        let installed = URL(filePath: ProcessInfo.processInfo.environment["LLMKIT_PREFIX"] ?? "/usr/local")
        let manifest = try String(contentsOf: installed.appending(path: "share/llmkit/installed-files"), encoding: .utf8)
        let listed = manifest.split(separator: "\n").map(String.init)
        #expect(listed.contains("lib/libllama.so") && listed.contains("lib/pkgconfig/llama.pc"), "\(listed.prefix(5))")
        // scripts/bootstrap-test adds the reference tools it installs to scripts/bootstrap's list.
        #expect(listed.contains("bin/llama-server") && listed.contains("lib/libmtmd.so"), "\(listed)")

        let scratch = try ScratchFolder()
        let prefix = scratch.url.appending(path: "prefix"), outside = scratch.url.appending(path: "outside.txt")
        for relative in listed + ["bin/llmkit"] {
            let file = prefix.appending(path: relative)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: file)
        }
        // The manifest of the fake prefix also names a path outside it, which must be skipped.
        try (manifest + "../outside.txt\n").write(to: prefix.appending(path: "share/llmkit/installed-files"), atomically: true, encoding: .utf8)
        try Data("mine".utf8).write(to: outside)
        try Data("mine".utf8).write(to: prefix.appending(path: "lib/other.so"))

        let output = try CommandRunner.run(Self.root.appending(path: "scripts/uninstall"), [],
                                           environment: ["LLMKIT_PREFIX": prefix.path, "LLMKIT_CACHE": scratch.path("cache")])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("removed \(listed.count + 1) files"), "\(output.stdout)")
        let left = FileManager.default.enumerator(atPath: prefix.path)?.compactMap { $0 as? String }
            .filter { !FileManager.default.isDirectory(prefix.appending(path: $0)) }
        #expect(left == ["lib/other.so"])
        #expect(try String(contentsOf: outside, encoding: .utf8) == "mine")
    }
}

private extension FileManager {
    func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }
}
