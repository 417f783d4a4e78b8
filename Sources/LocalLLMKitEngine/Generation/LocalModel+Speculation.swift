import Foundation

extension LocalModel.Configuration {
    /// How generation drafts tokens ahead, so that one decode step can yield several: the model
    /// verifies a draft in one batch and keeps the longest part that it would have generated
    /// itself. Every token is still drawn by the request's own sampler (its grammar included)
    /// from the model's own probabilities, one position after another, so sampled output keeps
    /// its distribution and greedy output its tokens, as far as the logits of a batch equal
    /// those of one token.
    ///
    /// On the CPU they are equal bit for bit (measured with the tests' models) for a draft of
    /// up to 6 tokens while attention covers fewer than 512 cache cells, with the weights in
    /// the file's layout (``LocalModel/Configuration/Weights/repacksWeights``, false by default with
    /// speculation): greedy output is then byte-identical to the same model's without
    /// speculation, loaded with `repacksWeights: false`. Past those shapes, ggml's CPU kernels
    /// sum one query and several in different orders, so a near tie between two tokens can go
    /// the other way, as in llama.cpp's own speculative decoding; GPU kernels also differ by
    /// batch size.
    ///
    /// ```swift
    /// let editor = try await LocalModel.load(from: url, configuration: .init(speculation: .promptLookup))
    /// let draftURL = url.deletingLastPathComponent().appending(path: "qwen2.5-coder-0.5b-instruct.gguf")
    /// let coder = try await LocalModel.load(
    ///     from: url, configuration: .init(speculation: .draftModel(at: draftURL, maximumDraft: 8)))
    /// ```
    public struct Speculation: Sendable, Hashable, CustomStringConvertible {
        /// Where drafts come from.
        package enum Source: Sendable, Hashable {
            case none
            case promptLookup(ngramLength: Int)
            case draftModel(URL)
            case multiTokenPrediction
            case automatic
        }

        package let source: Source
        /// The most tokens drafted for one step (0 without speculation).
        public let maximumDraft: Int
        /// Whether each step checks only as much of a draft as pays for itself (true by
        /// default): the model measures what a step costs by its number of tokens and how often
        /// each request's drafts are accepted, and checks the number of drafted tokens that
        /// maximises the expected tokens per second, none when no draft pays. Where checking a
        /// token costs nearly nothing (a GPU) that is usually the whole draft; on a CPU with few
        /// cores, only drafts that are likely right. False checks every drafted token, up to
        /// ``maximumDraft``, as llama.cpp does. The same holds for the drafts of an output
        /// grammar (``CompletionOptions/speculates``), with or without a speculation source; on a
        /// GPU, an output grammar drafts only with false (measured slower with the planner).
        public var adaptsDraftLength = true
        /// Whether a greedy request keeps exactly the tokens plain decoding gives it (true by
        /// default; an output grammar's drafts keep a seeded request's tokens too, and draft only
        /// while the sequence holds fewer than 256 cells): on the CPU, a
        /// greedy request generating alone checks at most as many drafted
        /// tokens as the model computes in one batch exactly as one token alone (measured at the
        /// first request: 7 rows for Qwen2.5-Coder-0.5B; see docs/PERFORMANCE.md). False checks
        /// longer drafts, as llama.cpp does, and a near tie may then go the other way.
        public var preservesGreedyOutput = true

        /// No speculation: one token per step.
        public static let none = Speculation(source: .none, maximumDraft: 0)

        /// Prompt lookup with the defaults of ``promptLookup(ngramLength:maximumDraft:)``.
        public static let promptLookup = promptLookup()

        /// Prompt lookup (n-gram self-speculation, llama.cpp's `ngram-simple`): when the last
        /// `ngramLength` tokens (the one just sampled included) appeared before in the prompt
        /// or the output, the tokens that followed them there are the draft. Needs no second
        /// model; pays off where the answer repeats its input (editing code, extracting fields,
        /// quoting).
        /// - Parameters:
        ///   - ngramLength: tokens that must match; a draft is at least this long.
        ///   - maximumDraft: the most tokens drafted for one step.
        public static func promptLookup(ngramLength: Int = 3, maximumDraft: Int = 16) -> Speculation {
            Speculation(source: .promptLookup(ngramLength: ngramLength), maximumDraft: maximumDraft)
        }

        /// A draft model (llama.cpp's `draft-simple`): a smaller model with the same vocabulary
        /// drafts greedily, in its own context with as many sequences as this model's.
        /// - Parameters:
        ///   - url: the draft model's GGUF file, loaded beside this model with the same
        ///     threads, memory mapping and GPU layers.
        ///   - maximumDraft: the most tokens drafted for one step (llama.cpp's default, 3: on a CPU,
        ///     checking a longer draft costs nearly as much as generating it).
        public static func draftModel(at url: URL, maximumDraft: Int = 3) -> Speculation {
            Speculation(source: .draftModel(url), maximumDraft: maximumDraft)
        }

        /// Multi-token prediction (llama.cpp's `draft-mtp`): the model's own next-token-prediction
        /// layers (``GGUFFile/multiTokenPredictionLayers``, as in MiMo, GLM-4.5, DeepSeek-V3 or
        /// Qwen3.5) draft from the hidden state of the token just decoded, in a context of their
        /// own on the same weights. No second model, and drafts that follow the model closely.
        /// A model without such layers, or a recurrent one, throws
        /// ``LocalModel/Error/speculationUnsupported(reason:)`` at load.
        /// - Parameter maximumDraft: the most tokens drafted for one step (llama.cpp's default, 3;
        ///   a model with several chained prediction layers drafts at most that many).
        public static func multiTokenPrediction(maximumDraft: Int = 3) -> Speculation {
            Speculation(source: .multiTokenPrediction, maximumDraft: maximumDraft)
        }

        /// Multi-token prediction when the model carries next-token-prediction layers that
        /// llama.cpp can run and its cache can drop a rejected draft, else none.
        /// ``LocalModel/speculationInEffect`` says what a loaded model uses.
        public static let automatic = Speculation(source: .automatic, maximumDraft: 0)

        /// What this speculation means for the model in `file`: ``automatic`` becomes
        /// ``multiTokenPrediction(maximumDraft:)`` or ``none``; the others stay.
        /// - Throws: ``LocalModel/Error/speculationUnsupported(reason:)`` for multi-token
        ///   prediction with a model that has no such layers.
        package func resolved(for file: GGUFFile) throws -> Speculation {
            switch source {
            case .automatic:
                var chosen = file.multiTokenPredictionLayers > 0 && !file.hasRecurrentLayers
                    ? Speculation.multiTokenPrediction() : .none
                chosen.adaptsDraftLength = adaptsDraftLength
                chosen.preservesGreedyOutput = preservesGreedyOutput
                return chosen
            case .multiTokenPrediction where file.multiTokenPredictionLayers == 0:
                throw LocalModel.Error.speculationUnsupported(
                    reason: "\(file.url.lastPathComponent) has no next-token-prediction layers that llama.cpp can run "
                        + "(architecture \(file.architecture ?? "unknown"))")
            default:
                return self
            }
        }

        /// The draft model's file, for ``draftModel(at:maximumDraft:)``.
        public var draftModelURL: URL? {
            if case .draftModel(let url) = source { url } else { nil }
        }

        /// Whether drafts are made at all.
        public var isEnabled: Bool {
            switch source {
            case .none, .automatic: false
            case .promptLookup, .draftModel, .multiTokenPrediction: true
            }
        }

        /// "none", "prompt lookup (3-grams, up to 16 tokens)", "draft model NAME (up to 8 tokens)",
        /// "multi-token prediction (up to 3 tokens)" or "automatic"; ", every token checked"
        /// follows when ``adaptsDraftLength`` is false.
        public var description: String {
            let checked = adaptsDraftLength ? "" : ", every token checked"
            return switch source {
            case .none: "none"
            case .promptLookup(let length): "prompt lookup (\(length)-grams, up to \(maximumDraft) tokens\(checked))"
            case .draftModel(let url): "draft model \(url.lastPathComponent) (up to \(maximumDraft) tokens\(checked))"
            case .multiTokenPrediction: "multi-token prediction (up to \(maximumDraft) tokens\(checked))"
            case .automatic: "automatic"
            }
        }

        /// Checks the numbers, naming the first that cannot work.
        /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
        package func validate() throws {
            func fail(_ name: String, _ reason: String) -> LocalModel.Error { .invalidOption(name: name, reason: reason) }
            if isEnabled, !(1...256).contains(maximumDraft) {
                throw fail("speculation.maximumDraft", "\(maximumDraft) is not between 1 and 256")
            }
            if case .promptLookup(let length) = source, !(1...64).contains(length) {
                throw fail("speculation.ngramLength", "\(length) is not between 1 and 64")
            }
            if case .draftModel(let url) = source, !url.isFileURL {
                throw fail("speculation.draftModel", "\(url) is not a file URL")
            }
        }
    }
}
