import CLlama
import Foundation

/// Copies a real GGUF model with one metadata value changed: ggml's gguf API
/// writes the new header, then the original tensor data is appended unchanged.
package enum GGUFRewriter {
    package struct Failure: Error { package let message: String }

    package static func copy(_ source: URL, to destination: URL, settingFloat key: String, to value: Float) throws {
        try copy(source, to: destination) { gguf_set_val_f32($0, key, value) }
    }

    package static func copy(_ source: URL, to destination: URL, settingUInt32 key: String, to value: UInt32) throws {
        try copy(source, to: destination) { gguf_set_val_u32($0, key, value) }
    }

    package static func copy(_ source: URL, to destination: URL, settingString key: String, to value: String) throws {
        try copy(source, to: destination) { gguf_set_val_str($0, key, value) }
    }

    package static func copy(_ source: URL, to destination: URL, settingStrings values: [String: String]) throws {
        try copy(source, to: destination) { context in
            for (key, value) in values { gguf_set_val_str(context, key, value) }
        }
    }

    private static func copy(_ source: URL, to destination: URL, edit: (OpaquePointer) -> Void) throws {
        guard let context = gguf_init_from_file(source.path, gguf_init_params(no_alloc: true, ctx: nil)) else {
            throw Failure(message: "cannot read \(source.path)")
        }
        defer { gguf_free(context) }
        let dataOffset = UInt64(gguf_get_data_offset(context))
        edit(context)
        guard gguf_write_to_file(context, destination.path, true) else {
            throw Failure(message: "cannot write \(destination.path)")
        }
        let input = try FileHandle(forReadingFrom: source)
        let output = try FileHandle(forWritingTo: destination)
        defer { try? input.close(); try? output.close() }
        try input.seek(toOffset: dataOffset)
        try output.seekToEnd()
        while let chunk = try input.read(upToCount: 8 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }
}
