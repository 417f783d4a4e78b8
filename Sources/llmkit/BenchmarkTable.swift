import Foundation

/// The one printer of the benchmarks' Markdown tables. Columns given a width are padded to it,
/// where a table imitates a llama.cpp tool's output so that the two can be read side by side;
/// the others are written compactly.
struct BenchmarkTable {
    /// How a column's cells line up, and how its rule says so in Markdown.
    enum Alignment {
        case left, right, center
    }

    /// A column: its title, alignment and width (0: as wide as each cell).
    struct Column {
        let title: String
        var alignment: Alignment = .right
        var width = 0

        func pad(_ cell: String) -> String {
            let padding = max(0, width - cell.count)
            switch alignment {
            case .left: return cell + String(repeating: " ", count: padding)
            case .right: return String(repeating: " ", count: padding) + cell
            case .center: return String(repeating: " ", count: padding / 2) + cell + String(repeating: " ", count: padding - padding / 2)
            }
        }

        var rule: String {
            let colons = alignment == .left ? 0 : alignment == .right ? 1 : 2
            let dashes = String(repeating: "-", count: width == 0 ? 3 : max(1, width - colons))
            switch alignment {
            case .left: return dashes
            case .right: return dashes + ":"
            case .center: return ":" + dashes + ":"
            }
        }
    }

    let columns: [Column]
    /// llama-batched-bench's spelling: no space after a row's opening bar, and a rule of dashes
    /// only, as wide as the row.
    var batchedBenchStyle = false

    /// A table of `columns`.
    init(_ columns: [Column], batchedBenchStyle: Bool = false) {
        self.columns = columns
        self.batchedBenchStyle = batchedBenchStyle
    }

    /// The title row and the rule beneath it.
    var header: String {
        row(columns.map(\.title)) + rule
    }

    private var rule: String {
        if batchedBenchStyle {
            return "|" + columns.enumerated().map { String(repeating: "-", count: $1.width + ($0 == 0 ? 1 : 2)) }
                .joined(separator: "|") + "|\n"
        }
        let rules = columns.map(\.rule)
        return columns.allSatisfy({ $0.width == 0 }) ? "|" + rules.joined(separator: "|") + "|\n"
            : "| " + rules.joined(separator: " | ") + " |\n"
    }

    /// One row of cells, in the columns' order.
    func row(_ cells: [String]) -> String {
        let line = "| " + zip(columns, cells).map { $0.pad($1) }.joined(separator: " | ") + " |\n"
        return batchedBenchStyle ? "|" + line.dropFirst(2) : line
    }

    /// `value` with `digits` digits after the point.
    static func number(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}
