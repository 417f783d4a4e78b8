import Foundation
import LocalLLMKit

/// `convert_units`: converts between units of length, mass, volume, temperature and
/// speed with Foundation's `Measurement`. Units go by canonical ids (`km`, `lb`, `degF`…)
/// or common names and abbreviations (`mile`, `miles`, `mi`…). No currency.
public struct UnitConversionTool: ConversationTool {
    /// A value and two units.
    public struct Arguments: Decodable, StructuredOutput {
        /// The value to convert.
        public var value: Double
        /// Its unit.
        public var from: String
        /// The unit wanted.
        public var to: String

        /// Describes the fields for the model.
        public static let outputHints: [String: OutputSchema.Hint] = [
            "value": "The number to convert",
            "from": "Its unit, e.g. km, mile, kg, lb, l, gallon, celsius, fahrenheit, km/h, mph",
            "to": "The unit to convert to",
        ]
    }

    /// The converted value.
    public struct Result: Encodable, Sendable, Equatable {
        /// The value in the new unit.
        public var value: Double
        /// The new unit's canonical id.
        public var unit: String
    }

    /// Why a conversion failed.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// A unit nobody knows.
        case unknownUnit(String)
        /// Units of different dimensions (length and mass, say).
        case incompatible(String, String)
        /// Currency is not a unit here.
        case currency(String)
        /// The value is not a finite number.
        case notFinite

        /// The message the model reads.
        public var description: String {
            switch self {
            case .unknownUnit(let unit): return "unknown unit \"\(unit)\"; known: \(UnitConversionTool.catalog.map(\.id).joined(separator: ", "))"
            case .incompatible(let from, let to): return "cannot convert \(from) to \(to): they measure different things"
            case .currency(let unit): return "\(unit) is a currency; currency conversion is not supported"
            case .notFinite: return "the value must be a finite number"
            }
        }
    }

    /// One unit: its canonical id, its dimension, the Foundation unit, and other spellings.
    struct Entry {
        let id: String
        let dimension: String
        let unit: Dimension
        let aliases: [String]
    }

    static let catalog: [Entry] = [
        Entry(id: "m", dimension: "length", unit: UnitLength.meters, aliases: ["meter", "meters", "metre", "metres"]),
        Entry(id: "km", dimension: "length", unit: UnitLength.kilometers, aliases: ["kilometer", "kilometers", "kilometre", "kilometres"]),
        Entry(id: "cm", dimension: "length", unit: UnitLength.centimeters, aliases: ["centimeter", "centimeters", "centimetre", "centimetres"]),
        Entry(id: "mm", dimension: "length", unit: UnitLength.millimeters, aliases: ["millimeter", "millimeters", "millimetre", "millimetres"]),
        Entry(id: "mi", dimension: "length", unit: UnitLength.miles, aliases: ["mile", "miles"]),
        Entry(id: "yd", dimension: "length", unit: UnitLength.yards, aliases: ["yard", "yards"]),
        Entry(id: "ft", dimension: "length", unit: UnitLength.feet, aliases: ["foot", "feet"]),
        Entry(id: "in", dimension: "length", unit: UnitLength.inches, aliases: ["inch", "inches"]),
        Entry(id: "nmi", dimension: "length", unit: UnitLength.nauticalMiles, aliases: ["nautical mile", "nautical miles"]),
        Entry(id: "kg", dimension: "mass", unit: UnitMass.kilograms, aliases: ["kilogram", "kilograms", "kilo", "kilos"]),
        Entry(id: "g", dimension: "mass", unit: UnitMass.grams, aliases: ["gram", "grams"]),
        Entry(id: "mg", dimension: "mass", unit: UnitMass.milligrams, aliases: ["milligram", "milligrams"]),
        Entry(id: "t", dimension: "mass", unit: UnitMass.metricTons, aliases: ["tonne", "tonnes", "metric ton", "metric tons"]),
        Entry(id: "lb", dimension: "mass", unit: UnitMass.pounds, aliases: ["lbs", "pound", "pounds"]),
        Entry(id: "oz", dimension: "mass", unit: UnitMass.ounces, aliases: ["ounce", "ounces"]),
        Entry(id: "st", dimension: "mass", unit: UnitMass.stones, aliases: ["stone", "stones"]),
        Entry(id: "l", dimension: "volume", unit: UnitVolume.liters, aliases: ["liter", "liters", "litre", "litres"]),
        Entry(id: "ml", dimension: "volume", unit: UnitVolume.milliliters, aliases: ["milliliter", "milliliters", "millilitre", "millilitres"]),
        Entry(id: "m3", dimension: "volume", unit: UnitVolume.cubicMeters, aliases: ["m³", "cubic meter", "cubic meters", "cubic metre"]),
        Entry(id: "gal", dimension: "volume", unit: UnitVolume.gallons, aliases: ["gallon", "gallons", "us gallon", "us gallons"]),
        Entry(id: "qt", dimension: "volume", unit: UnitVolume.quarts, aliases: ["quart", "quarts"]),
        Entry(id: "pt", dimension: "volume", unit: UnitVolume.pints, aliases: ["pint", "pints"]),
        Entry(id: "cup", dimension: "volume", unit: UnitVolume.cups, aliases: ["cups"]),
        Entry(id: "floz", dimension: "volume", unit: UnitVolume.fluidOunces, aliases: ["fl oz", "fluid ounce", "fluid ounces"]),
        Entry(id: "tbsp", dimension: "volume", unit: UnitVolume.tablespoons, aliases: ["tablespoon", "tablespoons"]),
        Entry(id: "tsp", dimension: "volume", unit: UnitVolume.teaspoons, aliases: ["teaspoon", "teaspoons"]),
        Entry(id: "degC", dimension: "temperature", unit: UnitTemperature.celsius, aliases: ["c", "°c", "celsius", "centigrade"]),
        Entry(id: "degF", dimension: "temperature", unit: UnitTemperature.fahrenheit, aliases: ["f", "°f", "fahrenheit"]),
        Entry(id: "K", dimension: "temperature", unit: UnitTemperature.kelvin, aliases: ["kelvin", "kelvins"]),
        Entry(id: "m/s", dimension: "speed", unit: UnitSpeed.metersPerSecond, aliases: ["mps", "meters per second", "metres per second"]),
        Entry(id: "km/h", dimension: "speed", unit: UnitSpeed.kilometersPerHour, aliases: ["kph", "kmh", "kilometers per hour", "kilometres per hour"]),
        Entry(id: "mph", dimension: "speed", unit: UnitSpeed.milesPerHour, aliases: ["mi/h", "miles per hour"]),
        Entry(id: "kn", dimension: "speed", unit: UnitSpeed.knots, aliases: ["knot", "knots", "kt"]),
    ]

    private static let currencies: Set<String> = ["usd", "eur", "gbp", "jpy", "krw", "cny", "chf", "dollar", "dollars", "euro", "euros", "$", "€", "£", "¥", "₩"]

    /// `convert_units`.
    public let name = "convert_units"
    /// What the model is told.
    public let description = "Converts a value between units of length, mass, volume, temperature or speed (not currency)."

    /// Creates the tool.
    public init() {}

    /// Converts.
    /// - Throws: ``Failure``.
    public func call(_ arguments: Arguments) async throws -> Result {
        try Self.convert(arguments.value, from: arguments.from, to: arguments.to)
    }

    /// The conversion itself.
    public static func convert(_ value: Double, from: String, to: String) throws -> Result {
        guard value.isFinite else { throw Failure.notFinite }
        let source = try unit(from), target = try unit(to)
        guard source.dimension == target.dimension else { throw Failure.incompatible(source.id, target.id) }
        let converted = Measurement(value: value, unit: source.unit).converted(to: target.unit).value
        return Result(value: converted, unit: target.id)
    }

    static func unit(_ text: String) throws -> Entry {
        let key = text.trimmingCharacters(in: .whitespaces)
        if let exact = catalog.first(where: { $0.id == key }) { return exact }
        let lowered = key.lowercased()
        if currencies.contains(lowered) { throw Failure.currency(key) }
        if let entry = catalog.first(where: { $0.id.lowercased() == lowered || $0.aliases.contains(lowered) }) { return entry }
        throw Failure.unknownUnit(key)
    }
}
