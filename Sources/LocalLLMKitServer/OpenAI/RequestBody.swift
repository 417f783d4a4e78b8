import Foundation
import LocalLLMKit

/// A request's JSON object, read field by field: each accessor checks the type and range and
/// names the parameter in the 400 it throws. Fields nobody reads are ignored, as OpenAI's
/// clients send extras (`user`, `metadata`, `store`…).
struct RequestBody: Sendable {
    let fields: [(String, OrderedJSON)]

    /// Parses a request's body: a large one on the ``BlockingWorkPool`` (an 8 MiB body takes a
    /// while, which must not hold a thread of Swift's shared pool, nor run at the models'
    /// priority), a small one here, at once (the pool's low priority would make it wait behind
    /// heavy work it does not need to share).
    static func parse(_ data: Data) async throws -> RequestBody {
        if data.count <= inlineBytes { return try RequestBody(data) }
        return try await BlockingWorkPool.shared.run { try RequestBody(data) }
    }

    /// The largest body parsed without the pool: a millisecond's work.
    static let inlineBytes = 64 << 10

    /// Parses a body: valid UTF-8, JSON (nesting bounded), an object.
    init(_ data: Data) throws(APIError) {
        guard case .object(let fields) = try Self.json(data) else { throw .invalid("The request body must be a JSON object.") }
        self.fields = fields
    }

    /// Parses a body that may be any JSON value (llama-server's `POST /lora-adapters` takes an
    /// array), as ``parse(_:)`` does.
    static func parseValue(_ data: Data) async throws -> OrderedJSON {
        if data.count <= inlineBytes { return try json(data) }
        return try await BlockingWorkPool.shared.run { try json(data) }
    }

    /// A body's JSON value: valid UTF-8, JSON (nesting bounded).
    private static func json(_ data: Data) throws(APIError) -> OrderedJSON {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw .invalid("The request body is not valid UTF-8.")
        }
        do {
            return try OrderedJSONParser.parse(text, strict: true)
        } catch {
            throw .invalid("The request body is not valid JSON: \(error)")
        }
    }

    init(fields: [(String, OrderedJSON)]) {
        self.fields = fields
    }

    /// The value of `name`, nil when absent or null.
    subscript(name: String) -> OrderedJSON? {
        guard let value = fields.last(where: { $0.0 == name })?.1, value != .null else { return nil }
        return value
    }

    func string(_ name: String) throws(APIError) -> String? {
        guard let value = self[name] else { return nil }
        guard case .string(let text) = value else { throw .invalid("'\(name)' must be a string.", param: name) }
        return text
    }

    func requiredString(_ name: String) throws(APIError) -> String {
        guard let text = try string(name) else { throw .invalid("'\(name)' is required.", param: name) }
        return text
    }

    func bool(_ name: String) throws(APIError) -> Bool? {
        guard let value = self[name] else { return nil }
        guard case .bool(let flag) = value else { throw .invalid("'\(name)' must be true or false.", param: name) }
        return flag
    }

    /// The number at `name`, within `range`. Errors name `label` (default: `name`) and report
    /// `param` (default: `name`): a map's entry is named by its map, e.g. `logit_bias[42]`.
    func number(_ name: String, in range: ClosedRange<Double>, label: String? = nil, param: String? = nil) throws(APIError) -> Double? {
        let label = label ?? name, param = param ?? name
        guard let value = self[name] else { return nil }
        let number: Double
        switch value {
        case .integer(let integer): number = Double(integer)
        case .number(let double): number = double
        default: throw .invalid("'\(label)' must be a number.", param: param)
        }
        guard number.isFinite else {
            throw .invalid("'\(label)' is a number beyond the range of a 64-bit float; it must be between \(range.lowerBound) "
                           + "and \(range.upperBound).", param: param)
        }
        guard range.contains(number) else {
            throw .invalid("'\(label)' is \(number); it must be between \(range.lowerBound) and \(range.upperBound).", param: param)
        }
        return number
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let value = self[name] else { return nil }
        let integer: Int
        switch value {
        case .integer(let whole): integer = whole
        case .number(let double) where double.rounded() == double && abs(double) < 9e15: integer = Int(double)
        case .number(let double) where double.rounded() == double:
            // A whole number too large for any range here (1e30, or 1e400 read as infinity).
            throw .invalid("'\(name)' is \(double.isFinite ? "\(double)" : "a number beyond the range of a 64-bit float"); "
                           + "it must be between \(range.lowerBound) and \(range.upperBound).", param: name)
        default: throw .invalid("'\(name)' must be an integer.", param: name)
        }
        guard range.contains(integer) else {
            throw .invalid("'\(name)' is \(integer); it must be between \(range.lowerBound) and \(range.upperBound).", param: name)
        }
        return integer
    }

    func object(_ name: String) throws(APIError) -> RequestBody? {
        guard let value = self[name] else { return nil }
        guard case .object(let fields) = value else { throw .invalid("'\(name)' must be an object.", param: name) }
        return RequestBody(fields: fields)
    }

    /// The value of `field`, checked against its kind: a `.number`, an `.integer`, or an
    /// `.array` of non-empty `.string`s; nil when absent or null.
    func value(of field: SamplingWireField) throws(APIError) -> OrderedJSON? {
        let name = field.name
        switch field.kind {
        case .number(let range): return try number(name, in: range).map(OrderedJSON.number)
        case .integer(let range): return try integer(name, in: range).map(OrderedJSON.integer)
        case .strings(let limit):
            guard let value = self[name] else { return nil }
            guard case .array(let items) = value, items.allSatisfy({ if case .string(let text) = $0 { !text.isEmpty } else { false } }) else {
                throw .invalid("'\(name)' must be an array of non-empty strings.", param: name)
            }
            guard items.count <= limit else { throw .invalid("'\(name)' holds more than \(limit) strings.", param: name) }
            return value
        }
    }

    /// llama-server's `grammar`: GBNF text with a `root` rule; nil when absent or empty.
    func grammar() throws(APIError) -> String? {
        guard let text = try string("grammar"), !text.isEmpty else { return nil }
        return text
    }

    /// `stop`: a string or up to `limit` strings.
    func stopSequences(limit: Int = 16) throws(APIError) -> [String] {
        switch self["stop"] {
        case nil: return []
        case .string(let text)?: return text.isEmpty ? [] : [text]
        case .array(let items)?:
            var sequences: [String] = []
            for item in items {
                guard case .string(let text) = item, !text.isEmpty else {
                    throw .invalid("'stop' must hold non-empty strings.", param: "stop")
                }
                sequences.append(text)
            }
            guard sequences.count <= limit else { throw .invalid("'stop' holds more than \(limit) sequences.", param: "stop") }
            return sequences
        default: throw .invalid("'stop' must be a string or an array of strings.", param: "stop")
        }
    }
}
