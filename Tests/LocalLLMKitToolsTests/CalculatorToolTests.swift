import Testing
@testable import LocalLLMKitTools

@Suite("calculate")
struct CalculatorTests {
    @Test("each operation", arguments: [
        (CalculatorTool.Operation.add, 2.0, 3.0, 5.0), (.subtract, 2, 3, -1), (.multiply, 4, 2.5, 10),
        (.divide, 7, 2, 3.5), (.power, 2, 10, 1024),
    ])
    func operations(operation: CalculatorTool.Operation, a: Double, b: Double, expected: Double) async throws {
        #expect(try await CalculatorTool().call(.init(operation: operation, a: a, b: b)) == .init(result: expected))
    }

    @Test("clear errors for division by zero, overflow and non-finite values")
    func failures() {
        #expect(throws: CalculatorTool.Failure.divisionByZero) { try CalculatorTool.evaluate(.divide, 1, 0) }
        #expect(throws: CalculatorTool.Failure.overflow) { try CalculatorTool.evaluate(.power, 10, 400) }
        #expect(throws: CalculatorTool.Failure.overflow) { try CalculatorTool.evaluate(.multiply, 1e300, 1e300) }
        #expect(throws: CalculatorTool.Failure.notFinite) { try CalculatorTool.evaluate(.add, .infinity, 1) }
        #expect(throws: CalculatorTool.Failure.notFinite) { try CalculatorTool.evaluate(.power, -8, 1.0 / 3) }
        #expect(CalculatorTool.Failure.divisionByZero.description == "division by zero")
    }

    @Test("the arguments schema names the operations")
    func schema() throws {
        let schema = try CalculatorTool().parametersSchema
        #expect(schema.contains(#""enum":["add","subtract","multiply","divide","power"]"#))
        #expect(schema.contains(#""required":["operation","a","b"]"#))
    }
}

@Suite("convert_units")
struct UnitConverterTests {
    @Test("conversions by canonical id, name and abbreviation", arguments: [
        (1.0, "mile", "km", 1.609344, "km"), (10, "km", "mi", 6.213712, "mi"), (100, "degC", "fahrenheit", 212, "degF"),
        (32, "F", "C", 0, "degC"), (0, "celsius", "K", 273.15, "K"), (1, "lb", "kg", 0.45359237, "kg"),
        (1, "gallon", "l", 3.785411784, "l"), (100, "km/h", "mph", 62.137119, "mph"), (1, "kn", "km/h", 1.852, "km/h"),
        (12, "inches", "ft", 1, "ft"), (2, "Miles", "yards", 3520, "yd"),
    ])
    func conversions(value: Double, from: String, to: String, expected: Double, unit: String) throws {
        let result = try UnitConversionTool.convert(value, from: from, to: to)
        #expect(abs(result.value - expected) < 1e-4 * max(1, abs(expected)), "\(result.value)")
        #expect(result.unit == unit)
    }

    @Test("unknown, incompatible and currency units are clear errors")
    func failures() {
        #expect(throws: UnitConversionTool.Failure.unknownUnit("furlongs")) { try UnitConversionTool.convert(1, from: "furlongs", to: "m") }
        #expect(throws: UnitConversionTool.Failure.incompatible("km", "kg")) { try UnitConversionTool.convert(1, from: "km", to: "kg") }
        #expect(throws: UnitConversionTool.Failure.currency("USD")) { try UnitConversionTool.convert(1, from: "USD", to: "EUR") }
        #expect(throws: UnitConversionTool.Failure.notFinite) { try UnitConversionTool.convert(.nan, from: "m", to: "km") }
        #expect(UnitConversionTool.Failure.unknownUnit("x").description.contains("known: m, km"))
    }
}
