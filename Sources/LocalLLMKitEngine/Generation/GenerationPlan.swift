/// Everything one generation needs, as plain values: what the layers above (chat, structured
/// output, tools) decide, the engine carries out without knowing why.
package struct GenerationPlan: Sendable {
    /// The prompt, already tokenized.
    package var promptTokens: [Int32]
    /// Length, stop sequences and sampling; sampling fields left `nil` take llama.cpp's defaults.
    package var options: CompletionOptions
    /// The one grammar that constrains sampling, if any.
    package var constraint: SamplingConstraint
    /// Where a thinking block starts and ends, and how many tokens it may take.
    package var thinking: ThinkingBudget?
    /// Extra stop sequences (a template's end-of-turn texts), after the request's own.
    package var additionalStopSequences: [String]
    /// Special tokens whose text reaches the output (a template's `<tool_call>`); other
    /// special tokens are left out of the text.
    package var preservedTokens: Set<Int32>
    /// Start from the longest prefix of the prompt already in the cache (of any sequence);
    /// otherwise the whole prompt is evaluated.
    package var reusesCache: Bool
    /// Keep generating past end-of-generation tokens, as llama-batched-bench does (benchmarks).
    package var ignoresEndOfGeneration = false
    /// Run the sampling chain over the whole vocabulary for every token, never over the
    /// likeliest candidates only (the bridge's shortcut, which draws the same tokens; tests
    /// compare both).
    package var samplesExhaustively = false
    /// Where images (or audio) lie in ``promptTokens``, whose positions there hold stand-ins
    /// (see ``MultimodalPrompt``); empty for text.
    package var media: [PromptMediaSpan] = []

    /// A plan for `promptTokens` with `options` and nothing else.
    package init(promptTokens: [Int32], options: CompletionOptions, constraint: SamplingConstraint = .none,
                 thinking: ThinkingBudget? = nil, additionalStopSequences: [String] = [],
                 preservedTokens: Set<Int32> = [], reusesCache: Bool = false) {
        self.promptTokens = promptTokens
        self.options = options
        self.constraint = constraint
        self.thinking = thinking
        self.additionalStopSequences = additionalStopSequences
        self.preservedTokens = preservedTokens
        self.reusesCache = reusesCache
    }
}

/// The grammar that sampling follows.
package enum SamplingConstraint: Sendable, Equatable {
    /// Free sampling.
    case none
    /// The whole output follows this GBNF grammar (root rule `root`).
    case grammar(String)
    /// A GBNF grammar that continues the prompt's generation prefix (llama.cpp feeds the
    /// prefix to it first). With triggers it is lazy: it applies only from the first trigger on.
    case continuation(String, triggers: [GrammarTrigger], preservedTokens: Set<Int32>)

    /// Whether it is ``grammar(_:)``: the whole output follows a grammar.
    package var isOutputGrammar: Bool {
        if case .grammar = self { return true }
        return false
    }
}

/// What starts a lazy grammar.
package struct GrammarTrigger: Sendable, Equatable {
    /// How ``value`` is matched.
    package enum Kind: Int32, Sendable, Equatable {
        /// The text appears in the output; a text that is exactly one preserved token matches that token.
        case word = 0
        /// A regular expression matches part of the output.
        case pattern = 1
        /// A regular expression matches the whole output.
        case fullPattern = 2
    }

    /// How ``value`` is matched.
    package var kind: Kind
    /// The text or the regular expression.
    package var value: String

    /// A trigger of `kind` on `value`.
    package init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }
}

/// Where a thinking block starts and ends, and its budget.
package struct ThinkingBudget: Sendable, Equatable {
    /// The assistant prefix at the end of the prompt; it may already open a thinking block.
    package var generationPrompt: String
    /// Tokens allowed inside the thinking block; nil for no cap.
    package var tokens: Int?
    /// The tag that opens a thinking block.
    package var startTag: String?
    /// The tags that close it; the first is forced when the budget runs out.
    package var endTags: [String]
    /// Inserted before the forced end tag.
    package var message: String?

    /// A budget of `tokens` for the block that `startTag` opens and `endTags` close.
    package init(generationPrompt: String, tokens: Int?, startTag: String?, endTags: [String], message: String?) {
        self.generationPrompt = generationPrompt
        self.tokens = tokens
        self.startTag = startTag
        self.endTags = endTags
        self.message = message
    }
}
