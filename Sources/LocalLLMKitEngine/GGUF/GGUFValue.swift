/// One metadata value of a GGUF file.
public enum GGUFValue: Sendable, Equatable {
    /// A signed integer (int8 … int64).
    case int(Int64)
    /// An unsigned integer (uint8 … uint64).
    case uint(UInt64)
    /// A floating-point number (float32 or float64).
    case float(Double)
    /// A boolean.
    case bool(Bool)
    /// A UTF-8 string.
    case string(String)
    /// An array of at most `GGUFFile.maximumArrayElements` elements, read in full.
    case array([GGUFValue])
    /// A longer array (a vocabulary, say), summarized by its element type and count.
    case largeArray(elementType: String, count: Int)

    /// The value as an integer, when it is one that fits.
    public var intValue: Int? {
        switch self {
        case .int(let value): return Int(exactly: value)
        case .uint(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// The value as a floating-point number, when it is numeric.
    public var doubleValue: Double? {
        switch self {
        case .float(let value): return value
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        default: return nil
        }
    }

    /// The value as a string, when it is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

extension GGUFValue: CustomStringConvertible {
    /// A short, human-readable rendering; long strings and arrays are abbreviated.
    public var description: String {
        switch self {
        case .int(let value): return String(value)
        case .uint(let value): return String(value)
        case .float(let value): return String(value)
        case .bool(let value): return String(value)
        case .string(let value):
            return value.count > 80 ? "\"\(value.prefix(77))…\" (\(value.utf8.count) bytes)" : "\"\(value)\""
        case .array(let values):
            let shown = values.prefix(8).map(\.description).joined(separator: ", ")
            return values.count > 8 ? "[\(shown), … (\(values.count) items)]" : "[\(shown)]"
        case .largeArray(let type, let count):
            return "[\(type) × \(count)]"
        }
    }
}
