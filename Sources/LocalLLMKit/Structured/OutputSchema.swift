/// The shape of a structured answer: an object with typed properties (or another
/// JSON value), compiled to a JSON Schema, a GBNF grammar that constrains generation,
/// and a short description for the prompt.
///
/// ```swift
/// let schema = OutputSchema("Letter") {
///     OutputSchema.Property("sender", .string, "Who sent the letter")
///     OutputSchema.Property("action", .choice(["none", "pay", "reply"]))
///     OutputSchema.Property("urgency", .integer(0...3), "0 only information, 3 deadline soon")
///     OutputSchema.Property("deadline", .date, "Only if the letter names one", optional: true)
///     OutputSchema.Property("steps", .list(.string, maximumCount: 4))
/// }
/// ```
///
/// Properties appear in the order they are written. A schema can also be derived
/// from a `Decodable` type: ``init(deriving:)``.
public struct OutputSchema: Sendable, Equatable {
    /// The schema's name (for the prompt description).
    public var name: String
    /// What the value is, when it needs saying.
    public var description: String?
    /// The value's type: usually ``Kind/object(_:)``.
    public var kind: Kind

    /// An object schema built from properties.
    public init(_ name: String, description: String? = nil, @PropertyBuilder properties: () -> [Property]) {
        self.name = name
        self.description = description
        self.kind = .object(properties())
    }

    /// A schema for any kind of value (an array at the top level, say).
    public init(_ name: String, description: String? = nil, kind: Kind) {
        self.name = name
        self.description = description
        self.kind = kind
    }

    /// One property of an object.
    public struct Property: Sendable, Equatable {
        /// The JSON key.
        public var name: String
        /// Its type.
        public var kind: Kind
        /// What it means, for the model.
        public var description: String?
        /// Whether it may be left out.
        public var isOptional: Bool

        /// Creates a property.
        /// - Parameters:
        ///   - name: the JSON key.
        ///   - kind: its type and bounds.
        ///   - description: what it means, shown to the model.
        ///   - optional: whether the model may leave it out.
        public init(_ name: String, _ kind: Kind, _ description: String? = nil, optional: Bool = false) {
            self.name = name
            self.kind = kind
            self.description = description
            self.isOptional = optional
        }
    }

    /// The type of a value, with its bounds.
    public indirect enum Kind: Sendable, Equatable {
        /// Text, with optional length bounds and an anchored regular expression (`^…$`).
        case text(minimumLength: Int?, maximumLength: Int?, pattern: String?)
        /// A whole number within optional bounds.
        case integer(minimum: Int?, maximum: Int?)
        /// A number within optional bounds.
        case number(minimum: Double?, maximum: Double?)
        /// `true` or `false`.
        case boolean
        /// One of a fixed set of strings.
        case choice([String])
        /// A calendar date, `YYYY-MM-DD`.
        case date
        /// A date and time, ISO 8601 (`2026-11-30T09:30:00Z`).
        case dateTime
        /// A list of values of one kind, with optional length bounds.
        case list(of: Kind, minimumCount: Int?, maximumCount: Int?)
        /// An object with string keys and values of one kind.
        case dictionary(Kind)
        /// A nested object.
        case object([Property])

        /// Any text.
        public static var string: Kind { .text(minimumLength: nil, maximumLength: nil, pattern: nil) }
        /// Text with bounds.
        public static func string(minimumLength: Int? = nil, maximumLength: Int? = nil, pattern: String? = nil) -> Kind {
            .text(minimumLength: minimumLength, maximumLength: maximumLength, pattern: pattern)
        }
        /// Any whole number.
        public static var integer: Kind { .integer(minimum: nil, maximum: nil) }
        /// A whole number in `range`.
        public static func integer(_ range: ClosedRange<Int>) -> Kind { .integer(minimum: range.lowerBound, maximum: range.upperBound) }
        /// Any number.
        public static var number: Kind { .number(minimum: nil, maximum: nil) }
        /// A number in `range`.
        public static func number(_ range: ClosedRange<Double>) -> Kind { .number(minimum: range.lowerBound, maximum: range.upperBound) }
        /// A list with optional bounds on its length.
        public static func list(_ element: Kind, minimumCount: Int? = nil, maximumCount: Int? = nil) -> Kind {
            .list(of: element, minimumCount: minimumCount, maximumCount: maximumCount)
        }
    }

    /// Collects the properties written in an ``OutputSchema`` builder.
    @resultBuilder
    public enum PropertyBuilder {
        /// One property.
        public static func buildExpression(_ property: Property) -> [Property] { [property] }
        /// Several properties.
        public static func buildExpression(_ properties: [Property]) -> [Property] { properties }
        /// A block of properties.
        public static func buildBlock(_ parts: [Property]...) -> [Property] { parts.flatMap { $0 } }
        /// Properties written under `if`.
        public static func buildOptional(_ parts: [Property]?) -> [Property] { parts ?? [] }
        /// Properties written under `if … else`, first branch.
        public static func buildEither(first parts: [Property]) -> [Property] { parts }
        /// Properties written under `if … else`, second branch.
        public static func buildEither(second parts: [Property]) -> [Property] { parts }
        /// Properties written in a `for` loop.
        public static func buildArray(_ parts: [[Property]]) -> [Property] { parts.flatMap { $0 } }
    }
}
