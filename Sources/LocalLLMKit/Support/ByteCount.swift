import Foundation

/// Byte counts for people, as `llmkit` prints them.
package enum ByteCount {
    /// `253113024` → `241.4 MiB`.
    package static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// `8G`, `512M`, `1.5GiB`, `4096` (bytes) → bytes, binary units; nil for anything else, a
    /// negative or fractional byte count, or more than 2^62.
    package static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let suffixes: [(String, Double)] = [("TIB", 0x1p40), ("GIB", 0x1p30), ("MIB", 0x1p20), ("KIB", 0x1p10),
                                             ("TB", 0x1p40), ("GB", 0x1p30), ("MB", 0x1p20), ("KB", 0x1p10),
                                             ("T", 0x1p40), ("G", 0x1p30), ("M", 0x1p20), ("K", 0x1p10), ("B", 1)]
        let (number, scale) = suffixes.first { trimmed.hasSuffix($0.0) }
            .map { (String(trimmed.dropLast($0.0.count)), $0.1) } ?? (trimmed, 1)
        guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }), let value = Double(number) else { return nil }
        let bytes = value * scale
        guard bytes.isFinite, bytes >= 0, bytes <= 0x1p62, bytes == bytes.rounded(.down) else { return nil }
        return Int64(bytes)
    }
}
