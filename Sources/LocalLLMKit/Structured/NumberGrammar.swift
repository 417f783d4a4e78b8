import Foundation

/// GBNF for JSON numbers within bounds.
///
/// llama.cpp's JSON Schema converter enforces `minimum` and `maximum` for integers only;
/// for `number` it allows any value, exponents included (`1e999`). This builds the rule
/// itself: plain decimals (no exponent, at most ``fractionDigits`` digits after the
/// point) whose value lies in the bounds, digit by digit.
enum NumberGrammar {
    /// Digits allowed after the decimal point.
    static let fractionDigits = 6
    /// The bound used for a side left open (and the widest allowed): at most 12 integer digits.
    static let limit: Double = 999_999_999_999

    /// A GBNF expression for numbers in `[minimum, maximum]` (open sides up to ±``limit``).
    /// Returns nil when no decimal with ``fractionDigits`` digits lies in the range, or the range
    /// lies wholly beyond ±``limit``.
    static func expression(minimum: Double?, maximum: Double?) -> String? {
        let lower = minimum ?? -limit, upper = maximum ?? limit
        guard !lower.isNaN, !upper.isNaN, lower <= limit, upper >= -limit else { return nil }
        let low = Fixed(rounding: max(lower, -limit), up: true)
        let high = Fixed(rounding: min(upper, limit), up: false)
        guard low.scaled <= high.scaled else { return nil }
        var alternatives: [String] = []
        if high.scaled >= 0 {
            alternatives.append(nonNegative(Fixed(scaled: max(low.scaled, 0)), high))
        }
        if low.scaled < 0 {
            alternatives.append("\"-\" " + group(nonNegative(Fixed(scaled: max(-high.scaled, 0)), Fixed(scaled: -low.scaled))))
        }
        return group(alternatives.joined(separator: " | "))
    }

    /// A non-negative decimal scaled by 10^fractionDigits.
    struct Fixed {
        let scaled: Int64

        init(scaled: Int64) { self.scaled = scaled }

        init(rounding value: Double, up: Bool) {
            let product = value * pow(10, Double(NumberGrammar.fractionDigits))
            let rounded = (product * 1e6).rounded() / 1e6          // absorb binary noise
            scaled = Int64(up ? rounded.rounded(.up) : rounded.rounded(.down))
        }

        var integerPart: UInt64 { UInt64(scaled) / unit }
        /// The fraction as exactly `fractionDigits` digits.
        var fraction: [Int] {
            let value = UInt64(scaled) % unit
            return String(value).leftPadded(to: NumberGrammar.fractionDigits).map { Int(String($0))! }
        }

        private var unit: UInt64 { UInt64(pow(10, Double(NumberGrammar.fractionDigits))) }
    }

    /// Decimals in [low, high], both non-negative.
    private static func nonNegative(_ low: Fixed, _ high: Fixed) -> String {
        let (lowInt, highInt) = (low.integerPart, high.integerPart)
        if lowInt == highInt {
            return literal(String(lowInt)) + " " + fraction(atLeast: low.fraction, atMost: high.fraction)
        }
        var alternatives = [literal(String(lowInt)) + " " + fraction(atLeast: low.fraction, atMost: nil)]
        if lowInt + 1 <= highInt - 1 {
            alternatives.append(group(integers(lowInt + 1, highInt - 1)) + " " + fraction(atLeast: nil, atMost: nil))
        }
        alternatives.append(literal(String(highInt)) + " " + fraction(atLeast: nil, atMost: high.fraction))
        return alternatives.joined(separator: " | ")
    }

    /// An optional `.digits` part whose value (zero-padded) lies between the bounds.
    private static func fraction(atLeast low: [Int]?, atMost high: [Int]?) -> String {
        let digits = continuation(at: 0, low: low, high: high, nonEmpty: true)
        let mayOmit = low.map { $0.allSatisfy { $0 == 0 } } ?? true
        let withPoint = digits.map { "\".\" " + group($0) }
        switch (withPoint, mayOmit) {
        case (let point?, true): return group(point) + "?"
        case (let point?, false): return group(point)
        case (nil, _): return ""
        }
    }

    /// Digit strings from position `position` on, compared (zero-padded) with the bounds;
    /// `low`/`high` are nil once the prefix is already strictly inside.
    private static func continuation(at position: Int, low: [Int]?, high: [Int]?, nonEmpty: Bool) -> String? {
        let remaining = fractionDigits - position
        guard remaining > 0 else { return nonEmpty ? nil : "" }
        var alternatives: [String] = []
        if !nonEmpty && (low.map { $0[position...].allSatisfy { $0 == 0 } } ?? true) {
            alternatives.append("\"\"")
        }
        let lowDigit = low?[position] ?? 0, highDigit = high?[position] ?? 9
        guard lowDigit <= highDigit else { return alternatives.isEmpty ? nil : alternatives.joined(separator: " | ") }
        let free = "[0-9]{0,\(remaining - 1)}"
        // Digits strictly between the bounds: anything may follow.
        let innerLow = lowDigit + (low == nil ? 0 : 1), innerHigh = highDigit - (high == nil ? 0 : 1)
        if innerLow <= innerHigh {
            alternatives.append(characterClass(innerLow, innerHigh) + (remaining > 1 ? " " + free : ""))
        }
        // Digits on a bound: the next position stays bound.
        if let low, lowDigit == low[position] {
            let stillHigh = high != nil && highDigit == lowDigit ? high : nil
            if let next = continuation(at: position + 1, low: low, high: stillHigh, nonEmpty: false) {
                alternatives.append(literal(String(lowDigit)) + " " + group(next))
            }
        }
        if let high, highDigit == high[position], !(low != nil && lowDigit == highDigit) {
            if let next = continuation(at: position + 1, low: nil, high: high, nonEmpty: false) {
                alternatives.append(literal(String(highDigit)) + " " + group(next))
            }
        }
        return alternatives.isEmpty ? nil : alternatives.joined(separator: " | ")
    }

    /// Integers in [low, high] without leading zeros.
    static func integers(_ low: UInt64, _ high: UInt64) -> String {
        let lowDigits = String(low).count, highDigits = String(high).count
        return (lowDigits...highDigits).map { length -> String in
            let start = length == lowDigits ? low : power(length - 1)
            let end = length == highDigits ? high : power(length) - 1
            return sameLength(Array(String(start)).map { Int(String($0))! }, Array(String(end)).map { Int(String($0))! })
        }.joined(separator: " | ")
    }

    private static func power(_ exponent: Int) -> UInt64 {
        (0..<exponent).reduce(1) { value, _ in value * 10 }
    }

    /// Digit strings of one length between `low` and `high`.
    private static func sameLength(_ low: [Int], _ high: [Int]) -> String {
        guard let first = low.first, let last = high.first else { return "\"\"" }
        let rest = low.count - 1
        if first == last {
            return literal(String(first)) + (rest > 0 ? " " + group(sameLength(Array(low.dropFirst()), Array(high.dropFirst()))) : "")
        }
        var alternatives = [literal(String(first)) + (rest > 0 ? " " + group(bounded(Array(low.dropFirst()), atLeast: true)) : "")]
        if first + 1 <= last - 1 {
            alternatives.append(characterClass(first + 1, last - 1) + (rest > 0 ? " [0-9]{\(rest)}" : ""))
        }
        alternatives.append(literal(String(last)) + (rest > 0 ? " " + group(bounded(Array(high.dropFirst()), atLeast: false)) : ""))
        return alternatives.joined(separator: " | ")
    }

    /// Digit strings of the same length as `bound`, at least (or at most) it.
    private static func bounded(_ bound: [Int], atLeast: Bool) -> String {
        guard let first = bound.first else { return "\"\"" }
        let rest = bound.count - 1
        var alternatives = [literal(String(first)) + (rest > 0 ? " " + group(bounded(Array(bound.dropFirst()), atLeast: atLeast)) : "")]
        let (from, to) = atLeast ? (first + 1, 9) : (0, first - 1)
        if from <= to {
            alternatives.append(characterClass(from, to) + (rest > 0 ? " [0-9]{\(rest)}" : ""))
        }
        return alternatives.joined(separator: " | ")
    }

    private static func characterClass(_ from: Int, _ to: Int) -> String { from == to ? literal(String(from)) : "[\(from)-\(to)]" }
    private static func literal(_ text: String) -> String { "\"\(text)\"" }
    private static func group(_ expression: String) -> String { expression.isEmpty ? "\"\"" : "(" + expression + ")" }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
