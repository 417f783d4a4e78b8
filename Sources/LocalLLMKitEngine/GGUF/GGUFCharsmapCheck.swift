import Foundation

/// Checks a UGM (`t5`) tokenizer's `tokenizer.ggml.precompiled_charsmap`, the
/// normalizer that llama.cpp walks for every byte of text it tokenizes.
///
/// The blob is a 32-bit size, an XOR-compressed double array (XCDA) of that many bytes,
/// then NUL-terminated replacement strings. llama.cpp follows the array's links as the
/// text dictates and throws when one leads outside it (`Index out of array bounds in
/// XCDA array!`), or when a replacement is out of bounds or unterminated. At load only
/// a newline is tried; any other byte throws later, inside `llama_tokenize`, which
/// catches nothing: the exception ends the process. So every path that some text can
/// take is walked here, each node once.
package enum GGUFCharsmapCheck {
    /// Larger arrays are refused rather than walked (real normalizers hold tens of thousands of nodes).
    package static let maximumNodes = 1 << 20

    /// What is wrong with `blob`, or nil when no text can make llama.cpp throw on it.
    package static func problem(in blob: UnsafeRawBufferPointer) -> String? {
        guard blob.count >= 4 else { return "the \(blob.count)-byte blob is shorter than its 4-byte size field" }
        let arrayBytes = Int(UInt32(littleEndian: blob.loadUnaligned(as: UInt32.self)))
        guard arrayBytes + 4 < blob.count else {
            return "its normalizer array (\(arrayBytes) bytes) does not fit in the \(blob.count)-byte blob"
        }
        let nodeCount = arrayBytes / 4
        guard nodeCount > 0 else { return nil }   // llama.cpp skips the walk
        guard nodeCount <= maximumNodes else {
            return "its normalizer array has \(nodeCount) nodes, more than the \(maximumNodes) LocalLLMKit checks"
        }
        let replacements = UnsafeRawBufferPointer(rebasing: blob[(4 + arrayBytes)...])
        func node(_ index: Int) -> UInt32 {
            UInt32(littleEndian: blob.loadUnaligned(fromByteOffset: 4 + 4 * index, as: UInt32.self))
        }
        // BASE in bits 10-30 (scaled by 256 when bit 9 is set), as llama.cpp's xcda_array_view reads it.
        func base(_ packed: UInt32) -> Int { Int((packed >> 10) << ((packed & (1 << 9)) >> 6)) }

        var pending = [base(node(0))]
        var seen = Set(pending)
        while let state = pending.popLast() {
            for byte in 1...255 {
                let child = state ^ byte
                guard child < nodeCount else {
                    return "byte 0x\(String(byte, radix: 16, uppercase: true)) leads to node \(child) of its \(nodeCount)-node normalizer array"
                }
                let packed = node(child)
                guard Int(packed & ((1 << 31) | 0xFF)) == byte else { continue }   // not a child: the match ends
                let next = child ^ base(packed)
                if (packed >> 8) & 1 == 1 {   // a leaf: `next` holds the replacement's offset
                    guard next < nodeCount else {
                        return "a replacement's index lies at node \(next), outside its \(nodeCount)-node normalizer array"
                    }
                    let offset = Int(node(next) & ((1 << 31) - 1))
                    guard offset < replacements.count else {
                        return "a replacement starts at byte \(offset) of its \(replacements.count)-byte string table"
                    }
                    guard replacements[offset...].contains(0) else {
                        return "the replacement at byte \(offset) of its string table has no terminating NUL"
                    }
                }
                if seen.insert(next).inserted { pending.append(next) }
            }
        }
        return nil
    }
}
