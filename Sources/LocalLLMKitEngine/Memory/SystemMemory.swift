import Foundation

/// This machine's memory as the operating system reports it now.
package enum SystemMemory {
    /// The memory available to a new allocation without swapping: `MemAvailable` from
    /// /proc/meminfo on Linux, else the physical memory.
    package static var availableBytes: Int64 {
        linuxAvailableBytes() ?? Int64(clamping: ProcessInfo.processInfo.physicalMemory)
    }

    /// `MemAvailable` from /proc/meminfo, in bytes, when it can be read.
    static func linuxAvailableBytes() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
              let kibibytes = line.split(separator: " ").dropFirst().first.flatMap({ Int64($0) }) else { return nil }
        return kibibytes.multipliedReportingOverflow(by: 1024).overflow ? nil : kibibytes * 1024
    }
}
