import Foundation
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Edits a real saved conversation the way a forger would: its header as JSON, or its cache
/// bytes, then writes it back with a correct checksum.
enum ArchiveForger {
    struct Failure: Error { let message: String }

    static func forge(_ source: URL, to destination: URL, header edit: (inout [String: Any]) -> Void = { _ in },
                      state editState: (inout [UInt8]) -> Void = { _ in }) throws {
        let data = try Data(contentsOf: source)
        func integer(at offset: Int) -> Int {
            Int(data[offset..<(offset + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        let headerStart = 20
        let headerLength = integer(at: 12)
        let stateStart = headerStart + headerLength + 8
        let stateLength = integer(at: headerStart + headerLength)
        guard var header = try JSONSerialization.jsonObject(with: data[headerStart..<(headerStart + headerLength)]) as? [String: Any] else {
            throw Failure(message: "the header is not a JSON object")
        }
        edit(&header)
        var state = Array(data[stateStart..<(stateStart + stateLength)])
        editState(&state)
        let json = try JSONSerialization.data(withJSONObject: header)
        var out = Data(data[0..<12])
        append(UInt64(json.count), to: &out)
        out.append(json)
        append(UInt64(state.count), to: &out)
        out.append(contentsOf: state)
        append(out.withUnsafeBytes { Checksums.crc32($0) }, to: &out)
        try out.write(to: destination)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}
