/// A `Decoder` that answers every request with a stand-in value and remembers what
/// was asked for: the keys of an object in order, the element of a list, or a
/// single value's type. See ``OutputSchema/init(deriving:name:)``.
final class ProbeDecoder: Decoder {
    let probe: SchemaProbe
    let path: String
    /// The type whose `init(from:)` is running, for its ``StructuredOutput`` hints.
    let owner: Any.Type
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    private enum Source {
        case fixed(OutputSchema.Kind)
        case nested(ProbeDecoder)
    }

    private enum Shape {
        case object([(name: String, source: Source, optional: Bool)])
        case list(Source?)
        case single(OutputSchema.Kind?)
    }

    private var shape: Shape?

    /// Containers nested inside the one being probed, within one `init(from:)`.
    let depth: Int

    init(probe: SchemaProbe, path: String, owner: Any.Type, depth: Int = 0) {
        self.probe = probe
        self.path = path
        self.owner = owner
        self.depth = depth
    }

    /// A decoder for a container nested in this one: an `init(from:)` that nests containers
    /// in a loop must not build a kind too deep for what walks it.
    private func nested(path: String) throws -> ProbeDecoder {
        guard depth < SchemaLimits.maximumDepth else {
            throw OutputFormat.Error.invalidSchema(property: path, reason: "\(owner) nests containers deeper than \(SchemaLimits.maximumDepth) levels")
        }
        return ProbeDecoder(probe: probe, path: path, owner: Any.self, depth: depth + 1)
    }

    /// The kind recorded so far.
    func kind() throws -> OutputSchema.Kind {
        switch shape {
        case .object(let members):
            let hints = (owner as? any StructuredOutput.Type)?.outputHints ?? [:]
            // A hint for a key the type does not decode is a typo or a renamed property: it
            // would be dropped silently, so it is an error naming the key.
            let names = Set(members.map(\.name))
            if let unknown = hints.keys.sorted().first(where: { !names.contains($0) }) {
                throw OutputFormat.Error.invalidSchema(
                    property: path + "." + unknown,
                    reason: "\(owner).outputHints names \"\(unknown)\", which is not one of its coding keys (\(names.sorted().joined(separator: ", ")))")
            }
            return .object(try members.map { member in
                let hint = hints[member.name]
                return OutputSchema.Property(member.name, try hint?.kind ?? resolve(member.source),
                                             hint?.description, optional: member.optional)
            })
        case .list(let element?):
            return .list(of: try resolve(element), minimumCount: nil, maximumCount: nil)
        case .single(let kind?):
            return kind
        case nil:
            return .object([])          // a type with no stored properties: an empty object
        case .list(nil), .single(nil):
            throw OutputFormat.Error.invalidSchema(property: path, reason: "\(owner) decodes no value that could be described")
        }
    }

    private func resolve(_ source: Source) throws -> OutputSchema.Kind {
        switch source {
        case .fixed(let kind): return kind
        case .nested(let decoder): return try decoder.kind()
        }
    }

    // MARK: Recording

    func recordProperty(_ name: String, kind: OutputSchema.Kind, optional: Bool) {
        recordMember(name, source: .fixed(kind), optional: optional)
    }

    func nestedDecoder(forProperty name: String) throws -> ProbeDecoder {
        let decoder = try nested(path: path + "." + name)
        recordMember(name, source: .nested(decoder), optional: false)
        return decoder
    }

    private func recordMember(_ name: String, source: Source, optional: Bool) {
        guard case .object(var members) = shape ?? .object([]) else { return }
        if !members.contains(where: { $0.name == name }) {
            members.append((name, source, optional))
        }
        shape = .object(members)
    }

    func recordElement(_ kind: OutputSchema.Kind) {
        if case .list(nil) = shape { shape = .list(.fixed(kind)) }
    }

    func nestedElementDecoder() throws -> ProbeDecoder {
        let decoder = try nested(path: path + "[]")
        if case .list(nil) = shape { shape = .list(.nested(decoder)) }
        return decoder
    }

    func recordSingle(_ kind: OutputSchema.Kind) {
        if case .single(nil) = shape { shape = .single(kind) }
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if shape == nil { shape = .object([]) }
        return KeyedDecodingContainer(KeyedProbe<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if shape == nil { shape = .list(nil) }
        return UnkeyedProbe(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if shape == nil { shape = .single(nil) }
        return SingleProbe(decoder: self)
    }
}

/// The keyed container of ``ProbeDecoder``: every key exists, and holds a stand-in.
private struct KeyedProbe<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try probeValue(type, forKey: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try probeOptional(type, forKey: key)
    }

    private func probeValue<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (kind, value) = try decoder.probe.derive(T.self, path: decoder.path + "." + key.stringValue)
        decoder.recordProperty(key.stringValue, kind: kind, optional: T.self is any OptionalProbe.Type)
        return value
    }

    private func probeOptional<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let (kind, _) = try decoder.probe.derive(T.self, path: decoder.path + "." + key.stringValue)
        decoder.recordProperty(key.stringValue, kind: kind, optional: true)
        return nil
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try probeValue(Bool.self, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try probeValue(String.self, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try probeValue(Double.self, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try probeValue(Float.self, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try probeValue(Int.self, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try probeValue(Int8.self, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try probeValue(Int16.self, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try probeValue(Int32.self, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try probeValue(Int64.self, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try probeValue(UInt.self, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try probeValue(UInt8.self, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try probeValue(UInt16.self, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try probeValue(UInt32.self, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try probeValue(UInt64.self, forKey: key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try probeOptional(Bool.self, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try probeOptional(String.self, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try probeOptional(Double.self, forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try probeOptional(Float.self, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try probeOptional(Int.self, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try probeOptional(Int8.self, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try probeOptional(Int16.self, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try probeOptional(Int32.self, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try probeOptional(Int64.self, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try probeOptional(UInt.self, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try probeOptional(UInt8.self, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try probeOptional(UInt16.self, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try probeOptional(UInt32.self, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try probeOptional(UInt64.self, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.nestedDecoder(forProperty: key.stringValue).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.nestedDecoder(forProperty: key.stringValue).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw unsupported("superDecoder()") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw unsupported("superDecoder(forKey:)") }

    private func unsupported(_ call: String) -> OutputFormat.Error {
        .invalidSchema(property: decoder.path, reason: "\(decoder.owner) calls \(call), which a schema cannot describe")
    }
}

/// The unkeyed container of ``ProbeDecoder``: a list of exactly one stand-in element.
private struct UnkeyedProbe: UnkeyedDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { 1 }
    var isAtEnd: Bool { currentIndex > 0 }
    var currentIndex = 0

    init(decoder: ProbeDecoder) { self.decoder = decoder }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (kind, value) = try decoder.probe.derive(T.self, path: decoder.path + "[]")
        decoder.recordElement(kind)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        currentIndex += 1
        return try decoder.nestedElementDecoder().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        currentIndex += 1
        return try decoder.nestedElementDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        throw OutputFormat.Error.invalidSchema(property: decoder.path, reason: "\(decoder.owner) calls superDecoder(), which a schema cannot describe")
    }
}

/// The single-value container of ``ProbeDecoder``.
private struct SingleProbe: SingleValueDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (kind, value) = try decoder.probe.derive(T.self, path: decoder.path)
        decoder.recordSingle(kind)
        return value
    }
}
