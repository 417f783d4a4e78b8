import CLlamaChatBridge

extension ChatTemplate {
    /// A bound that chat template work runs under.
    public enum Bound: String, Sendable, Equatable, CustomStringConvertible {
        /// Recursion or nesting: the engine's stack, and the nesting and tag length of the source.
        case depth
        /// Memory for text and data, and the length of the source.
        case size
        /// Time.
        case time

        /// `depth`, `size` or `time`.
        public var description: String { rawValue }
    }

    /// The bounds on parsing and rendering a template.
    ///
    /// llama.cpp's Jinja engine has no limits of its own, and a template (from a GGUF file, a
    /// file, a saved conversation) is as untrusted as any input: it can recurse without end,
    /// build gigabytes of text or loop forever. So every parse and render runs in a child
    /// process, on a thread with a known stack, under a memory limit and a deadline; exceeding
    /// one is ``ChatTemplate/Error/boundExceeded(_:reason:)``, and only the child ends.
    /// The defaults leave a wide margin over every real template shipped with llama.cpp.
    public struct Limits: Sendable, Equatable {
        /// The longest template source, in bytes (the largest real one has about 17 KiB).
        public var sourceBytes: Int
        /// The deepest nesting of brackets, prefix operators (`not`, `-`) and blocks in the source.
        public var nestingDepth: Int
        /// The most tokens in one `{{ }}` or `{% %}` tag (operator chains nest in the parser).
        public var tagTokens: Int
        /// The most memory one render may use, in bytes.
        public var memoryBytes: Int
        /// The longest one render (or the parse of a template) may take.
        public var timeLimit: Duration
        /// The stack of the thread that runs the engine, in bytes: bounds recursion.
        public var stackBytes: Int

        /// The defaults: 256 KiB of source, nesting 100, 2048 tokens per tag, 512 MiB of memory,
        /// 20 seconds, 64 MiB of stack.
        public static let standard: Limits = {
            let limits = llmkit_template_limits_default()
            return Limits(sourceBytes: Int(limits.source_bytes), nestingDepth: Int(limits.nesting_depth),
                          tagTokens: Int(limits.tag_tokens), memoryBytes: Int(limits.memory_bytes),
                          timeLimit: .milliseconds(Int64(limits.seconds * 1000)), stackBytes: Int(limits.stack_bytes))
        }()

        /// Creates limits; start from ``standard``.
        public init(sourceBytes: Int, nestingDepth: Int, tagTokens: Int, memoryBytes: Int, timeLimit: Duration,
                    stackBytes: Int) {
            self.sourceBytes = sourceBytes
            self.nestingDepth = nestingDepth
            self.tagTokens = tagTokens
            self.memoryBytes = memoryBytes
            self.timeLimit = timeLimit
            self.stackBytes = stackBytes
        }

        /// Checks that every limit is positive, with room for a thread to start.
        /// - Throws: ``ChatTemplate/Error/invalidLimit(name:reason:)``.
        func validate() throws {
            let positive: [(String, Int)] = [("sourceBytes", sourceBytes), ("nestingDepth", nestingDepth),
                                              ("tagTokens", tagTokens), ("memoryBytes", memoryBytes)]
            if let (name, value) = positive.first(where: { $0.1 < 1 }) {
                throw ChatTemplate.Error.invalidLimit(name: name, reason: "\(value) is not positive")
            }
            if stackBytes < 1 << 20 {
                throw ChatTemplate.Error.invalidLimit(name: "stackBytes", reason: "\(stackBytes) is less than 1 MiB")
            }
            if timeLimit <= .zero {
                throw ChatTemplate.Error.invalidLimit(name: "timeLimit", reason: "\(timeLimit) is not positive")
            }
        }

        /// The limits as the bridge reads them.
        var bridged: llmkit_template_limits {
            let seconds = Double(timeLimit.components.seconds) + Double(timeLimit.components.attoseconds) / 1e18
            return llmkit_template_limits(source_bytes: UInt64(sourceBytes), nesting_depth: UInt32(clamping: nestingDepth),
                                          tag_tokens: UInt32(clamping: tagTokens), memory_bytes: UInt64(memoryBytes),
                                          seconds: seconds, stack_bytes: UInt64(stackBytes))
        }
    }
}

extension Bridge {
    /// The error for a failed template call: a typed bound when the bridge reported one.
    static func templateError(_ message: String?, bound: Int32) -> ChatTemplate.Error {
        let reason = message.map(TemplateErrorText.oneLine) ?? "llama.cpp rejected the template"
        switch Int(bound) {
        case Int(LLMKIT_TEMPLATE_BOUND_DEPTH): return .boundExceeded(.depth, reason: reason)
        case Int(LLMKIT_TEMPLATE_BOUND_SIZE): return .boundExceeded(.size, reason: reason)
        case Int(LLMKIT_TEMPLATE_BOUND_TIME): return .boundExceeded(.time, reason: reason)
        default: return .failed(reason: reason)
        }
    }
}
