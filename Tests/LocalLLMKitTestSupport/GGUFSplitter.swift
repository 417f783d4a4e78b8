import CLlama
import Foundation

/// Cuts a GGUF model into parts the way llama.cpp's `gguf-split --split-max-tensors` does
/// (the tool is not built here): part 1 keeps every metadata entry, each part gets
/// `split.no`, `split.count` and `split.tensors.count`, and the tensors, in file order, are
/// shared out evenly; ggml's gguf API writes each header, then the data is copied.
package enum GGUFSplitter {
    package struct Failure: Error { package let message: String }

    /// Splits `source` into `count` parts named `prefix-0000i-of-0000N.gguf` in `folder`.
    /// - Returns: the parts' URLs, in order.
    @discardableResult
    package static func split(_ source: URL, into count: Int, prefix: String, in folder: URL) throws -> [URL] {
        var tensorsContext: OpaquePointer?
        let opened = withUnsafeMutablePointer(to: &tensorsContext) {
            gguf_init_from_file(source.path, gguf_init_params(no_alloc: true, ctx: $0))
        }
        guard let input = opened, let tensorsContext else { throw Failure(message: "cannot read \(source.path)") }
        defer { gguf_free(input); ggml_free(tensorsContext) }
        let total = Int(gguf_get_n_tensors(input)), dataOffset = UInt64(gguf_get_data_offset(input))
        let perPart = (total + count - 1) / count
        let reader = try FileHandle(forReadingFrom: source)
        defer { try? reader.close() }
        var urls: [URL] = []
        for part in 0..<count {
            guard let output = gguf_init_empty() else { throw Failure(message: "gguf_init_empty failed") }
            defer { gguf_free(output) }
            if part == 0 { gguf_set_kv(output, input) }
            gguf_set_val_u16(output, "split.no", UInt16(part))
            gguf_set_val_u16(output, "split.count", UInt16(count))
            gguf_set_val_i32(output, "split.tensors.count", Int32(total))
            let indices = (part * perPart)..<min((part + 1) * perPart, total)
            for index in indices {
                gguf_add_tensor(output, ggml_get_tensor(tensorsContext, gguf_get_tensor_name(input, Int64(index))))
            }
            let url = folder.appending(path: prefix + String(format: "-%05d-of-%05d.gguf", part + 1, count))
            guard gguf_write_to_file(output, url.path, true) else { throw Failure(message: "cannot write \(url.path)") }
            let writer = try FileHandle(forWritingTo: url)
            defer { try? writer.close() }
            try writer.seekToEnd()
            let alignment = gguf_get_alignment(output)
            for index in indices {
                let size = gguf_get_tensor_size(input, Int64(index))
                try reader.seek(toOffset: dataOffset + UInt64(gguf_get_tensor_offset(input, Int64(index))))
                try writer.write(contentsOf: reader.read(upToCount: size) ?? Data())
                try writer.write(contentsOf: Data(count: (alignment - size % alignment) % alignment))
            }
            urls.append(url)
        }
        return urls
    }
}
