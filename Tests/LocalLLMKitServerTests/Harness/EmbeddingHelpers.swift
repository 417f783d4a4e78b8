import Foundation
import LocalLLMKit
@testable import LocalLLMKitServer

/// What the embeddings tests need beside the server harness: the embedding model, JSON posted
/// with curl, and the cosine of two vectors.
extension ServerHarness {
    /// all-MiniLM-L6-v2 (384 dimensions, mean pooling), the bootstrap's embedding model.
    static func embeddingModel() async throws -> LocalModel {
        try await LocalModel.load(from: ReferenceModel.embeddingURL())
    }

    /// An HTTP answer as curl received it: the status and the body parsed as a JSON object.
    struct Reply {
        /// The HTTP status (0 when curl printed none).
        var status: Int
        /// The body as text.
        var body: String
        /// The body as a JSON object, when it is one.
        var json: [String: Any]? {
            try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        }
        /// OpenAI's `error` object, when the answer is one.
        var error: [String: Any]? { json?["error"] as? [String: Any] }
        /// The error's `param`.
        var errorParam: String? { error?["param"] as? String }
        /// The error's `message` ("" when there is none).
        var errorMessage: String { error?["message"] as? String ?? "" }
        /// `data[].embedding` of an embeddings answer encoded as floats, in the order given.
        var vectors: [[Float]] {
            ((json?["data"] as? [[String: Any]]) ?? []).map { item in
                ((item["embedding"] as? [Any]) ?? []).map { Float(($0 as? NSNumber)?.doubleValue ?? .nan) }
            }
        }
    }

    /// POSTs `body` (JSON text, sent from a file so that its size does not matter) to `path`
    /// under the server's `/v1`.
    static func post(_ server: ModelServer, _ path: String, _ body: String) async throws -> Reply {
        let file = FileManager.default.temporaryDirectory.appending(path: "llmkit-body-\(UUID().uuidString).json")
        try Data(body.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await curl(["-H", "Content-Type: application/json", "--data-binary", "@\(file.path)",
                               server.baseURL.appending(path: path).absoluteString])
    }

    /// GETs `path` under the server's root (`/health`, `/metrics`, `/v1/models`).
    static func get(_ server: ModelServer, _ path: String) async throws -> Reply {
        let root = server.baseURL.deletingLastPathComponent()
        return try await curl([root.appending(path: path).absoluteString])
    }

    /// Runs curl with `arguments` and splits its output into body and status.
    private static func curl(_ arguments: [String]) async throws -> Reply {
        let outcome = try await run("/usr/bin/curl", ["-sS", "--max-time", "120", "-w", "\n%{http_code}"] + arguments)
        guard outcome.status == 0, let newline = outcome.output.lastIndex(of: "\n") else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "curl failed: \(outcome.errors)"])
        }
        return Reply(status: Int(outcome.output[outcome.output.index(after: newline)...]) ?? 0,
                     body: String(outcome.output[..<newline]))
    }

    /// The cosine of two vectors (1 for the same direction).
    static func cosine(_ a: [Float], _ b: [Float]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .nan }
        var dot = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) {
            dot += Double(x) * Double(y)
            aa += Double(x) * Double(x)
            bb += Double(y) * Double(y)
        }
        return dot / (aa.squareRoot() * bb.squareRoot())
    }
}
