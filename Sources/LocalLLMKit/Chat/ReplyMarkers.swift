/// The bytes of model output at which a template's parser could split it differently, from the
/// texts the parser reacts to (``ChatRenderHandle/markers()``).
struct ReplyMarkers {
    /// Whether each byte value can begin a marker.
    private let starts: [Bool]
    /// The length in bytes of the longest marker, and at least ``minimumWindow``: a marker that
    /// begins this far or farther before a chunk cannot reach into it.
    let window: Int

    /// The shortest window: output whose last 16 bytes are verbatim the end of the parsed text
    /// is not being held back by the parser as the possible start of something else.
    static let minimumWindow = 16
    /// Bytes that begin markup in the formats llama.cpp parses (tags, JSON, bracketed tokens),
    /// treated as marker starts even when the template names no marker with them.
    static let alwaysStarting = Array("<[{".utf8)

    init(_ markers: [String]) {
        var starts = [Bool](repeating: false, count: 256)
        for byte in Self.alwaysStarting { starts[Int(byte)] = true }
        var window = Self.minimumWindow
        for marker in markers {
            guard let first = marker.utf8.first else { continue }
            starts[Int(first)] = true
            window = max(window, marker.utf8.count)
        }
        self.starts = starts
        self.window = window
    }

    /// Whether `byte` can be the first byte of a marker.
    func canStart(_ byte: UInt8) -> Bool { starts[Int(byte)] }
}
