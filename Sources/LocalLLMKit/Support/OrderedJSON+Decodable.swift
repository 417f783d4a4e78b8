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

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
