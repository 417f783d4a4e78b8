import Foundation
import Testing
@testable import LocalLLMKit

/// The progress line of `llmkit pull` and `llmkit import`, as a pure function: no model,
/// no terminal.
@Suite("Transfer progress line")
struct TransferProgressLineTests {
    @Test("ETA from the average rate: m:ss, h:mm:ss, rounded up; none without a rate, with nothing left or past 99 hours")
    func eta() {
        #expect(TransferProgressLine.eta(remainingBytes: 42_000, bytesPerSecond: 1000) == "0:42")
        #expect(TransferProgressLine.eta(remainingBytes: 42_001, bytesPerSecond: 1000) == "0:43")
        #expect(TransferProgressLine.eta(remainingBytes: 725, bytesPerSecond: 1) == "12:05")
        #expect(TransferProgressLine.eta(remainingBytes: 3723, bytesPerSecond: 1) == "1:02:03")
        #expect(TransferProgressLine.eta(remainingBytes: 100, bytesPerSecond: 0) == nil)
        #expect(TransferProgressLine.eta(remainingBytes: 100, bytesPerSecond: .nan) == nil)
        #expect(TransferProgressLine.eta(remainingBytes: 100, bytesPerSecond: .infinity) == nil)
        #expect(TransferProgressLine.eta(remainingBytes: 0, bytesPerSecond: 10) == nil)
        #expect(TransferProgressLine.eta(remainingBytes: -5, bytesPerSecond: 10) == nil)
        #expect(TransferProgressLine.eta(remainingBytes: 100 * 3600, bytesPerSecond: 1) == nil)
        #expect(TransferProgressLine.eta(remainingBytes: 99 * 3600, bytesPerSecond: 1) == "99:00:00")
        #expect(TransferProgressLine.duration(seconds: -3) == "0:00")
    }

    @Test("percentages are whole, rounded down, within 0...100")
    func percentages() {
        #expect(TransferProgressLine.percent(0, of: 1000) == 0)
        #expect(TransferProgressLine.percent(999, of: 1000) == 99)
        #expect(TransferProgressLine.percent(1000, of: 1000) == 100)
        #expect(TransferProgressLine.percent(2000, of: 1000) == 100)
        #expect(TransferProgressLine.percent(-1, of: 1000) == 0)
        #expect(TransferProgressLine.percent(0, of: 0) == 100)
    }

    @Test("a wide line has the bar, the counts, the rate and the ETA")
    func fullLine() {
        let line = TransferProgressLine.line(bytes: 12 << 20, total: 240 << 20, bytesPerSecond: Double(4 << 20), width: 100)
        #expect(line == "[#.............................] 12.0 MiB of 240.0 MiB (5%), 4.0 MiB/s, ETA 0:57")
        let label = TransferProgressLine.line(label: "copying", bytes: 1 << 30, total: 4 << 30, bytesPerSecond: nil, width: 100)
        #expect(label == "[#######.......................] copying 1.0 GiB of 4.0 GiB (25%)")
        #expect(TransferProgressLine.line(bytes: 2048, total: nil, bytesPerSecond: 1024, width: 80) == "2.0 KiB, 1.0 KiB/s")
        #expect(TransferProgressLine.line(bytes: 10, total: 10, bytesPerSecond: 5, width: 80).hasSuffix("10 B of 10 B (100%), 5 B/s"))
    }

    @Test("the line never exceeds its width: the bar narrows, then the bar, the rate and the ETA go, then it is cut",
          arguments: [1, 5, 20, 40, 45, 60, 70, 80, 200])
    func boundedWidth(width: Int) {
        for total: Int64? in [nil, 0, 1, 5 << 30] {
            for rate: Double? in [nil, 0, 1e9, .infinity] {
                let line = TransferProgressLine.line(label: "hashing", bytes: 3 << 30, total: total, bytesPerSecond: rate, width: width)
                #expect(line.count <= width && !line.isEmpty, "\(line)")
            }
        }
        let line = { (width: Int) in
            TransferProgressLine.line(bytes: 12 << 20, total: 240 << 20, bytesPerSecond: Double(4 << 20), width: width)
        }
        #expect(line(47) == "12.0 MiB of 240.0 MiB (5%), 4.0 MiB/s, ETA 0:57")
        #expect(line(45) == "12.0 MiB of 240.0 MiB (5%), ETA 0:57")
        #expect(line(30) == "12.0 MiB of 240.0 MiB (5%)")
        #expect(line(10) == "12.0 MiB o")
        let barred = TransferProgressLine.line(bytes: 12 << 20, total: 240 << 20, bytesPerSecond: Double(4 << 20), width: 60)
        #expect(barred.count == 60 && barred.hasPrefix("[") && barred.hasSuffix("ETA 0:57"))
    }
}
