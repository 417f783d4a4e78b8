extension GGUFValue: Encodable {
    /// Encodes the plain JSON value: numbers, booleans, strings and arrays as themselves, a
    /// non-finite float as its text (`"inf"`), and a large array as `{"type": …, "count": …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let number): try container.encode(number)
        case .uint(let number): try container.encode(number)
        case .float(let number): try number.isFinite ? container.encode(number) : container.encode(String(number))
        case .bool(let flag): try container.encode(flag)
        case .string(let text): try container.encode(text)
        case .array(let values): try container.encode(values)
        case .largeArray(let type, let count): try container.encode(["type": type, "count": String(count)])
        }
    }
}
