import CLlama
import Foundation

extension InferenceContext {
    /// The most rows a batch may have for which ggml's kernels give each row's logits bit for
    /// bit as when its token is decoded alone; 1 when two rows already differ.
    ///
    /// Speculative decoding verifies a draft as one batch. Past this many rows the CPU sums in
    /// other orders (a matrix kernel for many rows), so greedy verification could pick the other
    /// side of a near tie than plain decoding would (measured in docs/PERFORMANCE.md: 7 rows for
    /// Qwen2.5-Coder-0.5B, 5 for Gemma 3 270M). Measured here on `sequence`, which must be empty
    /// and is emptied again: `tokens` one at a time, then in batches of 2, 3, … up to `limit` rows.
    package func exactBatchRows(probing tokens: [Int32], sequence: Int32 = 0, upTo limit: Int) -> Int {
        let count = min(tokens.count, limit)
        guard count >= 2 else { return 1 }
        defer { _ = removePositions(of: sequence, from: 0) }
        let vocabulary = Int(llama_vocab_n_tokens(model.vocabulary))
        var alone: [[Float]] = []
        for index in 0..<count {
            let entry = Entry(token: tokens[index], position: index, sequence: sequence, wantsLogits: true)
            guard decode([entry], cancellations: []) == 0, let logits = logits(at: 0) else { return 1 }
            alone.append(Array(UnsafeBufferPointer(start: logits, count: vocabulary)))
        }
        var exact = 1
        for rows in 2...count {
            _ = removePositions(of: sequence, from: 0)
            let entries = (0..<rows).map { Entry(token: tokens[$0], position: $0, sequence: sequence, wantsLogits: true) }
            guard decode(entries, cancellations: []) == 0 else { break }
            let equal = (0..<rows).allSatisfy { row in
                guard let logits = logits(at: Int32(row)) else { return false }
                return alone[row].withUnsafeBytes { memcmp($0.baseAddress!, logits, vocabulary * MemoryLayout<Float>.size) == 0 }
            }
            guard equal else { break }
            exact = rows
        }
        return exact
    }
}
