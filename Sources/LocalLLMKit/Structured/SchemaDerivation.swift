import Foundation

extension OutputSchema {
    /// Derives a schema from a `Decodable` type, without macros: a probing decoder walks
    /// the type's `init(from:)` and records every key and type it asks for, in order.
    ///
    /// Supported: nested structs, arrays, optionals, `[String: …]` dictionaries,
    /// `CaseIterable` string enums (as choices), `String`, integers, `Double`, `Float`,
    /// `Bool`, `Date`, `URL`, `UUID` and `Decimal`. ``StructuredOutput`` adds descriptions
    /// and bounds.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` naming the property for a
    ///   type it cannot derive: a recursive type, a dictionary with non-string keys, an
    ///   enum with associated values, or an `init(from:)` that rejects the probe.
    public init<T: Decodable>(deriving type: T.Type, name: String? = nil) throws {
        let typeName = name ?? String(describing: T.self)
        let probe = SchemaProbe()
        let kind = try probe.derive(T.self, path: typeName).kind
        self.init(typeName, description: (T.self as? any StructuredOutput.Type)?.outputDescription, kind: kind)
        try validate()
    }
}

/// Walks `Decodable` types with ``ProbeDecoder`` and turns what they ask for into kinds.
final class SchemaProbe {
    private var stack: [ObjectIdentifier] = []
    /// Types being derived one inside another (generic wrappers nest without recursion).
    private var depth = 0

    /// The kind of `T`, and a stand-in value of it that the caller's `init(from:)` can keep.
    func derive<T: Decodable>(_ type: T.Type, path: String) throws -> (kind: OutputSchema.Kind, value: T) {
        depth += 1
        defer { depth -= 1 }
        guard depth <= SchemaLimits.maximumDepth + 1 else {
            throw OutputFormat.Error.invalidSchema(property: path, reason: "types are nested deeper than \(SchemaLimits.maximumDepth) levels")
        }
        if let leaf = Self.leaf(T.self) { return (leaf.kind, leaf.value as! T) }
        if let options = Self.choices(T.self) {
            guard let first = options.values.first else {
                throw OutputFormat.Error.invalidSchema(property: path, reason: "\(T.self) has no cases")
            }
            return (.choice(options.names), first as! T)
        }
        if let optional = T.self as? any OptionalProbe.Type {
            return (try derive(opening: optional.wrappedDecodable(at: path), path: path), optional.noneValue as! T)
        }
        if let dictionary = T.self as? any DictionaryProbe.Type {
            guard dictionary.keyType == String.self else {
                throw OutputFormat.Error.invalidSchema(property: path, reason: "a dictionary with \(dictionary.keyType) keys has no JSON form; only String keys are supported")
            }
            return (.dictionary(try derive(opening: dictionary.valueDecodable(at: path), path: path + "[*]")), dictionary.empty as! T)
        }
        let identifier = ObjectIdentifier(T.self)
        guard !stack.contains(identifier) else {
            throw OutputFormat.Error.invalidSchema(property: path, reason: "\(T.self) contains itself; recursive types cannot be generated")
        }
        stack.append(identifier)
        defer { stack.removeLast() }
        let decoder = ProbeDecoder(probe: self, path: path, owner: T.self)
        let value: T
        do {
            value = try T(from: decoder)
        } catch let error as OutputFormat.Error {
            throw error
        } catch {
            throw OutputFormat.Error.invalidSchema(property: path, reason: "cannot derive a schema from \(T.self): \(error)")
        }
        return (try decoder.kind(), value)
    }

    private func derive(opening type: any Decodable.Type, path: String) throws -> OutputSchema.Kind {
        try derive(type, path: path).kind
    }

    /// Kinds and stand-in values of the types that decode from a single JSON value.
    private static func leaf(_ type: Any.Type) -> (kind: OutputSchema.Kind, value: Any)? {
        switch type {
        case is String.Type: return (.string, "")
        case is Bool.Type: return (.boolean, false)
        case is Int.Type: return (.integer, 0 as Int)
        case is Int8.Type: return (.integer(minimum: Int(Int8.min), maximum: Int(Int8.max)), 0 as Int8)
        case is Int16.Type: return (.integer(minimum: Int(Int16.min), maximum: Int(Int16.max)), 0 as Int16)
        case is Int32.Type: return (.integer(minimum: Int(Int32.min), maximum: Int(Int32.max)), 0 as Int32)
        case is Int64.Type: return (.integer, 0 as Int64)
        case is UInt.Type: return (.integer(minimum: 0, maximum: nil), 0 as UInt)
        case is UInt8.Type: return (.integer(minimum: 0, maximum: Int(UInt8.max)), 0 as UInt8)
        case is UInt16.Type: return (.integer(minimum: 0, maximum: Int(UInt16.max)), 0 as UInt16)
        case is UInt32.Type: return (.integer(minimum: 0, maximum: Int(UInt32.max)), 0 as UInt32)
        case is UInt64.Type: return (.integer(minimum: 0, maximum: nil), 0 as UInt64)
        case is Double.Type: return (.number, 0 as Double)
        case is Float.Type: return (.number, 0 as Float)
        case is Decimal.Type: return (.number, Decimal(0))
        case is Date.Type: return (.dateTime, Date(timeIntervalSince1970: 0))
        case is URL.Type: return (.string, URL(string: "https://example.com")!)
        case is UUID.Type:
            return (.string(pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"), UUID())
        default: return nil
        }
    }

    private static func elements<C: Collection>(of collection: C) -> [Any] {
        collection.map { $0 as Any }
    }

    /// The raw values and cases of a `CaseIterable` enum with `String` raw values.
    private static func choices(_ type: Any.Type) -> (names: [String], values: [Any])? {
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        let cases = elements(of: iterable.allCases)
        let names = cases.compactMap { ($0 as? any RawRepresentable)?.rawValue as? String }
        return names.count == cases.count ? (names, cases) : nil
    }
}

/// Lets the probe see through `Optional`.
protocol OptionalProbe {
    static var noneValue: Self { get }
    static func wrappedDecodable(at path: String) throws -> any Decodable.Type
}

extension Optional: OptionalProbe {
    static var noneValue: Optional { nil }
    static func wrappedDecodable(at path: String) throws -> any Decodable.Type {
        guard let type = Wrapped.self as? any Decodable.Type else {
            throw OutputFormat.Error.invalidSchema(property: path, reason: "\(Wrapped.self) is not Decodable")
        }
        return type
    }
}

/// Lets the probe see a dictionary's key and value types.
protocol DictionaryProbe {
    static var keyType: Any.Type { get }
    static var empty: Self { get }
    static func valueDecodable(at path: String) throws -> any Decodable.Type
}

extension Dictionary: DictionaryProbe {
    static var keyType: Any.Type { Key.self }
    static var empty: Dictionary { [:] }
    static func valueDecodable(at path: String) throws -> any Decodable.Type {
        guard let type = Value.self as? any Decodable.Type else {
            throw OutputFormat.Error.invalidSchema(property: path, reason: "\(Value.self) is not Decodable")
        }
        return type
    }
}
