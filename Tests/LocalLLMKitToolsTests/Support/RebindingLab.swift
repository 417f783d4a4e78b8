import Foundation

/// Runs the real `webpage-probe` (the real load_webpage) inside a network namespace of its
/// own, next to a DNS server that rebinds names (Support/rebinding_lab.py): see the
/// script for the names, servers and routes.
enum RebindingLab {
    /// What one run saw.
    struct Report: Decodable {
        /// The probe's outcome: `url`, `title`, `text`, `truncated`, or `error` and `kind`.
        var probe: [String: String]
        var probeStderr: String
        /// How long the probe ran.
        var seconds: Double
        /// The paths requested from the public server (93.184.216.34:80).
        var publicHits: [String]
        /// The paths requested from the private server (127.0.0.1:80): must stay empty unless allowed.
        var privateHits: [String]
        /// Every DNS answer given.
        var dns: [Answer]

        struct Answer: Decodable {
            var name: String
            var type: Int
            var answers: [String]
        }

        /// Whether the DNS server did hand out `address` for `name` (so that the lab really rebound).
        func answered(_ name: String, with address: String) -> Bool {
            dns.contains { $0.name == name && $0.answers.contains(address) }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Namespaces need root; `unshare`, `ip` and `mount` must be installed.
    static var isAvailable: Bool {
        geteuid() == 0 && ["/usr/bin/unshare", "/usr/sbin/ip", "/usr/bin/mount"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The `webpage-probe` binary that `swift build` put next to the test bundle.
    static func probe() throws -> URL {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appending(path: "webpage-probe"))
            candidates.append(executable.deletingLastPathComponent().deletingLastPathComponent().appending(path: "webpage-probe"))
        }
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appending(path: ".build/debug/webpage-probe"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Failure(description: "webpage-probe not found (swift build builds it); looked at \(candidates.map(\.path))")
        }
        return found
    }

    /// Loads `url` with the probe inside a fresh lab; `arguments` go to the probe.
    static func run(_ url: String, _ arguments: [String] = []) async throws -> Report {
        let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "rebinding_lab.py")
        // The lab bounds the probe to 60 s; this bounds the lab.
        let (status, data) = try await ChildProcess.run(URL(filePath: "/usr/bin/unshare"),
                                                        ["-n", "-m", "/usr/bin/env", "python3", script.path, try probe().path, url] + arguments,
                                                        timeout: .seconds(90))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(Report.self, from: data)
        } catch {
            throw Failure(description: "the rebinding lab failed (status \(status)): \(String(decoding: data, as: UTF8.self))")
        }
    }
}
