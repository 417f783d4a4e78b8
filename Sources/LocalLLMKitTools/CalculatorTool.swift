import Foundation
import LocalLLMKit

/// `calculate`: exact arithmetic on two numbers, so that a small model need not do sums in its head.
///
/// ```swift
/// // The model's template must render tools (Qwen, Llama 3, Mistral...), or pass one in the configuration.
/// let conversation = try Conversation(model: model, tools: [CalculatorTool()])
/// ```
public struct CalculatorTool: ConversationTool {
    /// The operations.
    public enum Operation: String, Decodable, CaseIterable, Sendable {
        case add, subtract, multiply, divide, power
    }

    /// Two operands and an operation.
    public struct Arguments: Decodable, StructuredOutput {
        /// What to do.
        public var operation: Operation
        /// The first operand.
        public var a: Double
        /// The second operand.
        public var b: Double

        /// Describes the fields for the model.
        public static let outputHints: [String: OutputSchema.Hint] = [
            "operation": "add, subtract, multiply, divide or power (a to the power b)",
            "a": "The first number",
            "b": "The second number",
        ]
    }

    /// The result.
    public struct Result: Encodable, Sendable, Equatable {
        /// The value.
        public var result: Double
    }

    /// Why a calculation failed.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Division by zero.
        case divisionByZero
        /// The result is too large (or too small) to represent.
        case overflow
        /// An operand or the result is not a finite number.
        case notFinite

        /// The message the model reads.
        public var description: String {
            switch self {
            case .divisionByZero: return "division by zero"
            case .overflow: return "the result is too large to represent"
            case .notFinite: return "the operands and the result must be finite numbers"
            }
        }
    }

    /// `calculate`.
    public let name = "calculate"
    /// What the model is told.
    public let description = "Calculates exactly: add, subtract, multiply, divide or power, on two numbers a and b."

    /// Creates the tool.
    public init() {}

    /// Calculates.
    /// - Throws: ``Failure``.
    public func call(_ arguments: Arguments) async throws -> Result {
        Result(result: try Self.evaluate(arguments.operation, arguments.a, arguments.b))
    }

    /// The arithmetic itself.
    public static func evaluate(_ operation: Operation, _ a: Double, _ b: Double) throws -> Double {
        guard a.isFinite, b.isFinite else { throw Failure.notFinite }
        let value: Double
        switch operation {
        case .add: value = a + b
        case .subtract: value = a - b
        case .multiply: value = a * b
        case .divide:
            guard b != 0 else { throw Failure.divisionByZero }
            value = a / b
        case .power: value = pow(a, b)
        }
        if value.isNaN { throw Failure.notFinite }
        guard value.isFinite else { throw Failure.overflow }
        return value
    }
}
