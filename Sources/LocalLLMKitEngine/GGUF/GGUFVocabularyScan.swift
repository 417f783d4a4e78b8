import CLlama
import Foundation

/// Facts about a GGUF file's token list (`tokenizer.ggml.tokens`) that llama.cpp
/// aborts on, gathered in one pass while the header is open.
///
/// The list can hold hundreds of thousands of strings, too many to keep in
/// ``GGUFFile/metadata``; this keeps only what the loadability check needs.
package struct GGUFVocabularyScan: Sendable, Equatable {
    /// Two tokens with the same text, which llama.cpp's vocabulary loader asserts against.
    package struct Duplicate: Sendable, Equatable {
        var firstIndex: Int
        var index: Int
        var text: String
    }

    /// The number of tokens, or nil when the key is missing or not an array of strings.
    package var tokenCount: Int?
    /// The first repeated token text, in the form llama.cpp sees it.
    package var duplicate: Duplicate?
    /// Bytes that have neither a `<0xXX>` token nor a one-byte token: an SPM
    /// tokenizer falls back to these and throws (through llama.cpp's C API) when one is missing.
    package var missingByteTokens: [UInt8] = []
    /// The size of `tokenizer.ggml.precompiled_charsmap` in bytes, when it is a byte array.
    package var charsmapSize: Int?
    /// What is wrong with that charsmap (``GGUFCharsmapCheck``), if anything.
    package var charsmapProblem: String?

    package static let key = "tokenizer.ggml.tokens"
    package static let charsmapKey = "tokenizer.ggml.precompiled_charsmap"

    package init(context: OpaquePointer) {
        scanCharsmap(context)
        let keyID = gguf_find_key(context, Self.key)
        guard keyID >= 0, gguf_get_kv_type(context, keyID) == GGUF_TYPE_ARRAY,
              gguf_get_arr_type(context, keyID) == GGUF_TYPE_STRING else { return }
        let count = gguf_get_arr_n(context, keyID)
        tokenCount = count
        var byteTokens = [Bool](repeating: false, count: 256)
        // An open-addressing table of token indices keyed by text hash: bytes are
        // compared only when two hashes meet. Flat buffers keep this quick even in
        // debug builds (Gemma's list has 262,144 tokens).
        var capacity = 16
        while capacity < 2 * count { capacity <<= 1 }
        let mask = capacity - 1
        var slots = [Int](repeating: -1, count: capacity)
        var hashes = [UInt64](repeating: 0, count: capacity)
        slots.withUnsafeMutableBufferPointer { slots in
            hashes.withUnsafeMutableBufferPointer { hashes in
                for index in 0..<count {
                    let hash: UInt64
                    if let pointer = gguf_get_arr_str(context, keyID, index), pointer.pointee != 0 {
                        let text = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
                        hash = Self.hash(text)
                        if text.count == 1 || text.count == 6, let byte = Self.byteValue(of: text) {
                            byteTokens[Int(byte)] = true
                        }
                    } else {
                        hash = Self.withText(context, keyID, index) { Self.hash($0) }
                    }
                    guard duplicate == nil else { continue }
                    var slot = Int(truncatingIfNeeded: hash) & mask
                    while slots[slot] >= 0 {
                        let other = slots[slot]
                        if hashes[slot] == hash, Self.sameText(context, keyID, other, index) {
                            let text = Self.withText(context, keyID, index) { String(decoding: $0, as: UTF8.self) }
                            duplicate = Duplicate(firstIndex: other, index: index, text: text)
                            break
                        }
                        slot = (slot + 1) & mask
                    }
                    slots[slot] = index
                    hashes[slot] = hash
                }
            }
        }
        missingByteTokens = (0...255).filter { !byteTokens[Int($0)] }.map(UInt8.init)
    }

    /// Checks the UGM normalizer while its bytes are at hand (llama.cpp reads it as int8 or uint8).
    private mutating func scanCharsmap(_ context: OpaquePointer) {
        let keyID = gguf_find_key(context, Self.charsmapKey)
        guard keyID >= 0, gguf_get_kv_type(context, keyID) == GGUF_TYPE_ARRAY,
              [GGUF_TYPE_INT8, GGUF_TYPE_UINT8].contains(gguf_get_arr_type(context, keyID)) else { return }
        let count = gguf_get_arr_n(context, keyID)
        charsmapSize = count
        let bytes = UnsafeRawBufferPointer(start: count > 0 ? gguf_get_arr_data(context, keyID) : nil, count: count)
        charsmapProblem = GGUFCharsmapCheck.problem(in: bytes)
    }

    /// 64-bit FNV-1a, written as a plain pointer loop: this runs once per token.
    private static func hash(_ text: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        guard var byte = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return hash }
        let end = byte + text.count
        while byte < end {
            hash = (hash ^ UInt64(byte.pointee)) &* 0x0000_0100_0000_01B3
            byte += 1
        }
        return hash
    }

    /// Calls `body` with token `index`'s text as llama.cpp builds it: a C string
    /// (cut at the first NUL), with an empty one replaced by `[EMPTY_<index>]`.
    private static func withText<R>(_ context: OpaquePointer, _ keyID: Int64, _ index: Int,
                                    _ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard let pointer = gguf_get_arr_str(context, keyID, index), pointer.pointee != 0 else {
            return Array("[EMPTY_\(index)]".utf8).withUnsafeBytes(body)
        }
        return body(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }

    private static func sameText(_ context: OpaquePointer, _ keyID: Int64, _ a: Int, _ b: Int) -> Bool {
        withText(context, keyID, a) { first in
            withText(context, keyID, b) { second in first.elementsEqual(second) }
        }
    }

    /// The byte that `text` stands for in llama.cpp's `byte_to_token`: `<0xXX>` with
    /// upper-case hex digits, or the single byte itself.
    private static func byteValue(of text: UnsafeRawBufferPointer) -> UInt8? {
        if text.count == 1 { return text[0] }
        guard text.count == 6, text[0] == UInt8(ascii: "<"), text[1] == UInt8(ascii: "0"),
              text[2] == UInt8(ascii: "x"), text[5] == UInt8(ascii: ">"),
              let high = upperHexDigit(text[3]), let low = upperHexDigit(text[4]) else { return nil }
        return high << 4 | low
    }

    private static func upperHexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
