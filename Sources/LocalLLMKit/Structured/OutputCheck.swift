/// Where in a generated value `uniqueItems` must hold, for arrays whose items a grammar
/// cannot keep distinct (anything but a list of enum values).
indirect enum UniqueCheck: Sendable {
    /// An array: checks for the items after the prefix, for each prefix item, and the path
    /// to name when the items themselves must be unique.
    case array(items: UniqueCheck?, prefix: [UniqueCheck?], uniquePath: String?)
    /// An object: checks for named properties and for the others.
    case object(properties: [String: UniqueCheck], additional: UniqueCheck?)
    /// Alternatives told apart by the value's JSON type.
    case byType([String: UniqueCheck])
    /// A definition, looked up when checking (definitions may be recursive).
    case reference(String)
}

/// The checks that run on generated JSON after the grammar has done what it can.
struct OutputCheck: Sendable {
    let root: UniqueCheck
    let definitions: [String: UniqueCheck]

    /// Checks `text`, the JSON a grammar produced.
    /// - Throws: ``OutputFormat/Error/invalidOutput(raw:reason:)`` naming the array and the equal items.
    func verify(_ text: String) throws {
        let value: OrderedJSON
        do {
            value = try OrderedJSONParser.parse(text)
        } catch {
            throw OutputFormat.Error.invalidOutput(raw: text, reason: "uniqueItems cannot be checked: \(error)")
        }
        if let reason = violation(in: value, check: root) {
            throw OutputFormat.Error.invalidOutput(raw: text, reason: reason)
        }
    }

    /// The first violation, described; nil when there is none. Depth is bounded by the parser.
    private func violation(in value: OrderedJSON, check: UniqueCheck) -> String? {
        switch (check, value) {
        case (.reference(let name), _):
            return definitions[name].flatMap { violation(in: value, check: $0) }
        case (.byType(let checks), _):
            let type = value.jsonType
            return (checks[type] ?? (type == "integer" ? checks["number"] : nil)).flatMap { violation(in: value, check: $0) }
        case (.object(let properties, let additional), .object(let members)):
            for (name, member) in members {
                if let check = properties[name] ?? (properties.keys.contains(name) ? nil : additional),
                   let reason = violation(in: member, check: check) {
                    return reason
                }
            }
            return nil
        case (.array(let items, let prefix, let uniquePath), .array(let elements)):
            if let uniquePath {
                var first: [String: Int] = [:]
                for (index, element) in elements.enumerated() {
                    if let earlier = first.updateValue(index, forKey: element.canonical) {
                        return "\(uniquePath): items \(earlier) and \(index) are equal, but the schema requires unique items (uniqueItems)"
                    }
                }
            }
            for (index, element) in elements.enumerated() {
                if let check = index < prefix.count ? prefix[index] : items, let reason = violation(in: element, check: check) {
                    return reason
                }
            }
            return nil
        default:
            return nil          // the grammar fixed the shape; nothing else to check here
        }
    }
}

extension OrderedJSON {
    /// A serialization that is equal exactly for equal JSON values: object keys sorted,
    /// numbers with an integral value written as integers (`1.0` equals `1`).
    var canonical: String {
        switch self {
        case .number(let value) where value == value.rounded() && abs(value) < 9.007_199_254_740_992e15:
            return String(Int64(value))
        case .array(let values):
            return "[" + values.map(\.canonical).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.0 < $1.0 }.map { OrderedJSON.string($0.0).serialized() + ":" + $0.1.canonical }
                .joined(separator: ",") + "}"
        default:
            return serialized()
        }
    }

    /// The JSON Schema type of the value (`integer` for numbers with an integral value).
    var jsonType: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .number(let value): return value == value.rounded() && value.isFinite ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
