import Foundation
import Synchronization

/// A ``ModelBackend`` that answers from a script, for testing an app without a model: each
/// request takes the next scripted step (an answer, a failure, a delay), and every request is
/// recorded. Its availability is whatever you set.
///
/// ```swift
/// let script = ScriptedBackend([.answer("Hello!"), .failure(URLError(.timedOut)), .answer(#"{"city": "Paris"}"#)])
/// let first = try await script.respond(to: BackendRequest("Hi"))   // "Hello!"
/// print(script.requests.map(\.prompt))                              // ["Hi"]
/// ```
public final class ScriptedBackend: ModelBackend {
    /// One scripted reaction to a request.
    public enum Step: Sendable {
        /// Answers with this text (JSON, for requests of a `Decodable` type), streamed in words.
        case answer(String)
        /// Fails with this error.
        case failure(any Swift.Error)
        /// Waits this long (cancellation ends the wait), then reacts as `then`.
        indirect case delay(Duration, then: Step)
    }

    private struct State {
        var steps: [Step]
        var requests: [BackendRequest] = []
        var availability: BackendAvailability = .available
    }

    private let state: Mutex<State>
    public let name: String

    /// A backend that takes `steps` in order, one per request; past the last it fails with
    /// ``Error/scriptExhausted``.
    public init(_ steps: [Step], name: String = "scripted") {
        state = Mutex(State(steps: steps))
        self.name = name
    }

    /// Every request it was asked, in order.
    public var requests: [BackendRequest] { state.withLock { $0.requests } }

    /// Makes ``availability()`` answer `availability` from now on.
    public func setAvailability(_ availability: BackendAvailability) {
        state.withLock { $0.availability = availability }
    }

    public func availability() async -> BackendAvailability {
        state.withLock { $0.availability }
    }

    public func streamResponse(to request: BackendRequest) -> Conversation.ResponseStream {
        let step = next(for: request)
        return Conversation.ResponseStream { emit in
            let text = try await Self.perform(step)
            var sent = ""
            for word in text.split(separator: " ", omittingEmptySubsequences: false) {
                let delta = sent.isEmpty ? String(word) : " " + word
                emit(.text(delta))
                sent += delta
            }
            return ModelResponse(content: text, text: text)
        }
    }

    public func respond<T: Decodable & Sendable>(to request: BackendRequest, generating type: T.Type) async throws -> ModelResponse<T> {
        let text = try await Self.perform(next(for: request))
        return ModelResponse(content: try StructuredDecoding.decode(T.self, from: text, stopReason: .endOfText), text: text)
    }

    private func next(for request: BackendRequest) -> Step {
        state.withLock { state in
            state.requests.append(request)
            return state.steps.isEmpty ? .failure(Error.scriptExhausted) : state.steps.removeFirst()
        }
    }

    private static func perform(_ step: Step) async throws -> String {
        switch step {
        case .answer(let text): return text
        case .failure(let error): throw error
        case .delay(let duration, let then):
            try await Task.sleep(for: duration)
            return try await perform(then)
        }
    }

    /// Why a scripted backend failed by itself.
    public enum Error: Swift.Error, Equatable, LocalizedError {
        /// More requests came than steps were scripted.
        case scriptExhausted

        /// A one-line description that names what was wrong.
        public var errorDescription: String? {
            switch self {
            case .scriptExhausted: "the scripted backend has no step left for this request"
            }
        }
    }
}
