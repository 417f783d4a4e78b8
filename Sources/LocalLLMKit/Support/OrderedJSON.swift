import Foundation

/// A JSON value whose objects keep their keys in insertion order, with a serializer:
/// JSON Schema property order is the order in which the model writes fields.
package indirect enum OrderedJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([OrderedJSON])
    case object([(String, OrderedJSON)])

    /// Structural equality: the same kind and the same content, objects in the same key order;
    /// an integer equals a number of the same value (JSON has one number type). Numbers compare
    /// as numbers: a value beyond a Double (`1e400`, read as infinity) is not `null`, although
    /// it serializes as `null`.
    package static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.integer(let a), .number(let b)), (.number(let b), .integer(let a)): return Double(a) == b && b.isFinite
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// Where the first number beyond the range of a Double is (`$.messages[2].x`), or nil: JSON
    /// allows `1e400`, read here as infinity, which no field can take.
    package var pathOfNonFiniteNumber: String? {
        var pending: [(OrderedJSON, String)] = [(self, "$")]
        while let (value, path) = pending.popLast() {
            switch value {
            case .number(let number) where !number.isFinite: return path
            case .array(let items): pending += items.enumerated().reversed().map { ($0.element, "\(path)[\($0.offset)]") }
            case .object(let members): pending += members.reversed().map { ($0.1, "\(path).\($0.0)") }
            default: break
            }
        }
        return nil
    }

    /// Compact JSON text.
    package func serialized() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .integer(let value): out += String(value)
        case .number(let value):
            out += value.isFinite ? (value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)) : "null"
        case .string(let value): QuotedLiteral.write(value, as: .json, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                QuotedLiteral.write(key, as: .json, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }
}
