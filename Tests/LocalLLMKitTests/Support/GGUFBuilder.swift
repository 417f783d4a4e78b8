import Foundation

/// Writes small GGUF v3 files by hand, for tests of the header reader.
struct GGUFBuilder {
    enum Value {
        case string(String)
        case uint32(UInt32)
        case float32(Float)
    }

    struct Tensor {
        var name: String
        var dimensions: [UInt64]
        var type: UInt32 = 0            // GGML_TYPE_F32
        var offset: UInt64
    }

    var version: UInt32 = 3
    var keyValues: [(String, Value)] = [("general.architecture", .string("llama"))]
    var tensors: [Tensor] = []
    /// Bytes of tensor data written after the header.
    var dataBytes = 0

    func bytes() -> [UInt8] {
        var out: [UInt8] = Array("GGUF".utf8)
        append(version, to: &out)
        append(UInt64(tensors.count), to: &out)
        append(UInt64(keyValues.count), to: &out)
        for (key, value) in keyValues {
            appendString(key, to: &out)
            switch value {
            case .string(let text):
                append(UInt32(8), to: &out)
                appendString(text, to: &out)
            case .uint32(let number):
                append(UInt32(4), to: &out)
                append(number, to: &out)
            case .float32(let number):
                append(UInt32(6), to: &out)
                append(number.bitPattern, to: &out)
            }
        }
        for tensor in tensors {
            appendString(tensor.name, to: &out)
            append(UInt32(tensor.dimensions.count), to: &out)
            tensor.dimensions.forEach { append($0, to: &out) }
            append(tensor.type, to: &out)
            append(tensor.offset, to: &out)
        }
        while out.count % 32 != 0 { out.append(0) }
        out += [UInt8](repeating: 0, count: dataBytes)
        return out
    }

    func write(to url: URL) throws {
        try Data(bytes()).write(to: url)
    }

    private func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
    }

    private func appendString(_ text: String, to out: inout [UInt8]) {
        append(UInt64(text.utf8.count), to: &out)
        out += text.utf8
    }
}

/// Copies the first `count` bytes of a file.
func writePrefix(of source: URL, count: Int, to destination: URL) throws {
    let handle = try FileHandle(forReadingFrom: source)
    defer { try? handle.close() }
    try (handle.readData(ofLength: count)).write(to: destination)
}
