/// The bytes of model output at which a template's parser could split it differently, from the
/// texts the parser reacts to (``ChatRenderHandle/markers()``).
///
/// While the end of the output is free text that the parser is scanning (an `until` or `ac` node
/// of its grammar), the scan stops only at one of its delimiters, and at the end of the output
/// holds back what could be the start of one. The template's other markers (thinking tags,
/// preserved tokens, stops, triggers) are checked too, whole, as a margin.
struct ReplyMarkers {
    /// Whether each byte value can begin a marker.
    private let starts: [Bool]
    /// Whether each byte value begins markup in general (see ``generic``).
    private let genericStarts: [Bool]
    /// The markers, by their first byte, each with whether it is a delimiter of the parser's scans.
    private let byFirstByte: [[(bytes: [UInt8], isDelimiter: Bool)]]
    /// The length in bytes of the longest marker, and at least ``minimumWindow``: a marker that
    /// begins this far or farther before a chunk cannot reach into it.
    let window: Int

    /// The shortest window: output whose last 16 bytes are verbatim the end of the parsed text
    /// is not being held back by the parser as the possible start of something else.
    static let minimumWindow = 16
    /// Bytes that begin markup in the formats llama.cpp parses (tags, JSON, bracketed tokens). They
    /// count as marker starts even when the template names no marker with them, and any marker may
    /// follow them: after one, chunks are parsed until a whole window has passed. NUL is one too:
    /// the parser reads the output as a C string, so nothing after a NUL reaches it.
    static let generic = Array("<[{\u{0}".utf8)

    init(_ markers: ChatRenderHandle.Markers) {
        var starts = [Bool](repeating: false, count: 256)
        var genericStarts = [Bool](repeating: false, count: 256)
        for byte in Self.generic {
            starts[Int(byte)] = true
            genericStarts[Int(byte)] = true
        }
        var byFirstByte = [[(bytes: [UInt8], isDelimiter: Bool)]](repeating: [], count: 256)
        var window = Self.minimumWindow
        let delimiters = Set(markers.delimiters)
        for marker in delimiters.union(markers.markers) {
            let bytes = Array(marker.utf8)
            guard let first = bytes.first else { continue }
            starts[Int(first)] = true
            byFirstByte[Int(first)].append((bytes, delimiters.contains(marker)))
            window = max(window, bytes.count)
        }
        self.starts = starts
        self.genericStarts = genericStarts
        self.byFirstByte = byFirstByte
        self.window = window
    }

    /// Whether `byte` begins markup in general (one of ``generic``).
    func isGeneric(_ byte: UInt8) -> Bool { genericStarts[Int(byte)] }

    /// Whether a known marker overlaps a chunk (begins before it and continues into it, or begins
    /// inside it), whole or, for a delimiter, begun at the end of the output: a scan holds back the
    /// start of its delimiters, while other markers only count once the parser can see them whole.
    /// `bytes` ends with the chunk (its last `chunkLength` bytes) and holds at least the
    /// `window - 1` bytes before it, or the whole output.
    func touchesChunk(_ bytes: [UInt8], chunkLength: Int) -> Bool {
        let chunkStart = bytes.count - chunkLength
        for start in max(0, chunkStart - window + 1)..<bytes.count where starts[Int(bytes[start])] {
            for marker in byFirstByte[Int(bytes[start])] where start + marker.bytes.count > chunkStart {
                let end = start + marker.bytes.count
                if end <= bytes.count {
                    if bytes[start..<end].elementsEqual(marker.bytes) { return true }
                } else if marker.isDelimiter, bytes[start...].elementsEqual(marker.bytes[0..<(bytes.count - start)]) {
                    return true
                }
            }
        }
        return false
    }
}
