/// A `Decodable` type that adds descriptions and bounds to the schema derived from it.
///
/// Any `Decodable` type can be generated (``OutputSchema/init(deriving:name:)`` walks its
/// `init(from:)`); conforming to this protocol only adds what the type system cannot
/// say. Swift macros are not available to LocalLLMKit (swift-syntax cannot be fetched
/// here), so the table is written by hand, keyed by coding key:
///
/// ```swift
/// enum Action: String, Decodable, CaseIterable { case none, pay, reply }   // a choice
///
/// struct Letter: Decodable, StructuredOutput {
///     var sender: String
///     var action: Action
///     var urgency: Int
///     var deadline: Date?
///     var steps: [String]
///
///     static let outputHints: [String: OutputSchema.Hint] = [
///         "sender": "Who sent the letter",
///         "urgency": .init("0 only information, 3 deadline soon", kind: .integer(0...3)),
///         "deadline": .init("Only if the letter names one", kind: .date),
///         "steps": .init(kind: .list(.string, maximumCount: 4)),
///     ]
/// }
/// ```
public protocol StructuredOutput: Decodable {
    /// Descriptions and bounds, by coding key.
    static var outputHints: [String: OutputSchema.Hint] { get }
    /// What the whole value is, for the prompt.
    static var outputDescription: String? { get }
}

extension StructuredOutput {
    /// No hints.
    public static var outputHints: [String: OutputSchema.Hint] { [:] }
    /// No description.
    public static var outputDescription: String? { nil }
}

extension OutputSchema {
    /// What the type system cannot say about a property: its meaning and its bounds.
    public struct Hint: Sendable, Equatable, ExpressibleByStringLiteral {
        /// What the property means.
        public var description: String?
        /// A kind that replaces the derived one, to add bounds (`.integer(0...3)`) or to
        /// choose `.date` over `.dateTime` for a `Date`.
        public var kind: Kind?

        /// Creates a hint.
        public init(_ description: String? = nil, kind: Kind? = nil) {
            self.description = description
            self.kind = kind
        }

        /// A hint that is only a description.
        public init(stringLiteral description: String) {
            self.init(description)
        }
    }
}
