extension OrderedJSON: Decodable {
    /// Decodes any JSON value. A `Decoder` does not say in which order an object's keys were
    /// written, so they are sorted: the same input always gives the same text.
    package init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(try keyed.allKeys.sorted { $0.stringValue < $1.stringValue }.map { key in
                (key.stringValue, try keyed.decode(OrderedJSON.self, forKey: key))
            })
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var values: [OrderedJSON] = []
            while !unkeyed.isAtEnd { values.append(try unkeyed.decode(OrderedJSON.self)) }
            self = .array(values)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? single.decode(Int.self) {
                self = .integer(number)
            } else if let number = try? single.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    fileprivate struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension OrderedJSON: Encodable {
    /// Encodes the value (in wire types such as ``ChatCompletionChunk``); a number that is not
    /// finite, which JSON cannot hold, as `null`, as ``serialized()`` writes it. The encoder
    /// decides the order of an object's keys.
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var keyed = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in members { try keyed.encode(value, forKey: AnyKey(stringValue: key)) }
        case .array(let values):
            var unkeyed = encoder.unkeyedContainer()
            for value in values { try unkeyed.encode(value) }
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let flag):
            var single = encoder.singleValueContainer()
            try single.encode(flag)
        case .integer(let number):
            var single = encoder.singleValueContainer()
            try single.encode(number)
        case .number(let number):
            var single = encoder.singleValueContainer()
            if number.isFinite { try single.encode(number) } else { try single.encodeNil() }
        case .string(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        }
    }
}
