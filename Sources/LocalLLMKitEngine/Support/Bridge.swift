import CLlamaEngineBridge
import Foundation

/// Helpers for calling the C++ bridge: error strings and returned JSON.
package enum Bridge {
    /// Converts and frees a malloc'ed string the bridge returned: an error message, or a result
    /// such as a converted grammar.
    package static func take(_ error: llmkit_error?) -> String? {
        guard let error else { return nil }
        defer { llmkit_string_free(error) }
        return String(cString: error)
    }

    /// Calls a bridge function that returns a malloc'ed string, and decodes it as JSON
    /// (snake_case keys become camelCase properties).
    /// - Throws: `failure(message)` with the bridge's message when the call failed.
    package static func json<T: Decodable, Failure: Swift.Error>(_ type: T.Type, failure: (String) -> Failure,
                                   _ call: (UnsafeMutablePointer<llmkit_error?>) -> UnsafeMutablePointer<CChar>?) throws -> T {
        var error: llmkit_error?
        guard let result = call(&error) else {
            throw failure(take(error) ?? "unknown error")
        }
        defer { llmkit_string_free(result) }
        let data = Data(bytes: result, count: strlen(result))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw failure("unexpected reply from the bridge: \(error)")
        }
    }
}
