import CLlama

/// Reads values out of a ggml `gguf_context`, checking each type before calling
/// the accessor that asserts on it.
package struct GGUFHeaderReader {
    package let context: OpaquePointer

    /// Every key and value, with long arrays summarized.
    package func metadata() -> [String: GGUFValue] {
        var result: [String: GGUFValue] = [:]
        for index in 0..<gguf_get_n_kv(context) {
            guard let key = gguf_get_key(context, index) else { continue }
            if let value = value(at: index) {
                result[String(cString: key)] = value
            }
        }
        return result
    }

    /// The size of the tensor data section and the total number of weights.
    package func tensorLayout() -> (dataSize: Int64, parameterCount: Int64) {
        var end: Int64 = 0
        var parameters: Int64 = 0
        for index in 0..<gguf_get_n_tensors(context) {
            let offset = Int64(clamping: gguf_get_tensor_offset(context, index))
            let size = Int64(clamping: gguf_get_tensor_size(context, index))
            let tensorEnd = offset.addingReportingOverflow(size)
            end = max(end, tensorEnd.overflow ? .max : tensorEnd.partialValue)
            if let dims = gguf_get_tensor_ne(context, index) {
                var count: Int64 = 1
                for dim in 0..<Int(GGML_MAX_DIMS) {
                    count = count.multipliedReportingOverflow(by: max(dims[dim], 0)).partialValue
                }
                parameters = parameters.addingReportingOverflow(count).partialValue
            }
        }
        return (end, parameters)
    }

    private func value(at index: Int64) -> GGUFValue? {
        let type = gguf_get_kv_type(context, index)
        if type == GGUF_TYPE_ARRAY {
            return array(at: index)
        }
        if type == GGUF_TYPE_STRING {
            return gguf_get_val_str(context, index).map { .string(String(cString: $0)) }
        }
        guard Self.size(of: type) != nil, let data = gguf_get_val_data(context, index) else { return nil }
        return scalar(type, at: data)
    }

    private func array(at index: Int64) -> GGUFValue? {
        let elementType = gguf_get_arr_type(context, index)
        let count = gguf_get_arr_n(context, index)
        guard count <= GGUFFile.maximumArrayElements else {
            return .largeArray(elementType: String(cString: gguf_type_name(elementType)), count: count)
        }
        if elementType == GGUF_TYPE_STRING {
            return .array((0..<count).map { i in
                .string(gguf_get_arr_str(context, index, i).map { String(cString: $0) } ?? "")
            })
        }
        guard let stride = Self.size(of: elementType), let data = gguf_get_arr_data(context, index) else {
            return .largeArray(elementType: String(cString: gguf_type_name(elementType)), count: count)
        }
        return .array((0..<count).compactMap { i in scalar(elementType, at: data + i * stride) })
    }

    /// The size in bytes of a scalar GGUF type, or nil for strings, arrays and unknown types.
    private static func size(of type: gguf_type) -> Int? {
        switch type {
        case GGUF_TYPE_UINT8, GGUF_TYPE_INT8, GGUF_TYPE_BOOL: return 1
        case GGUF_TYPE_UINT16, GGUF_TYPE_INT16: return 2
        case GGUF_TYPE_UINT32, GGUF_TYPE_INT32, GGUF_TYPE_FLOAT32: return 4
        case GGUF_TYPE_UINT64, GGUF_TYPE_INT64, GGUF_TYPE_FLOAT64: return 8
        default: return nil
        }
    }

    private func scalar(_ type: gguf_type, at data: UnsafeRawPointer) -> GGUFValue? {
        switch type {
        case GGUF_TYPE_UINT8: return .uint(UInt64(data.loadUnaligned(as: UInt8.self)))
        case GGUF_TYPE_INT8: return .int(Int64(data.loadUnaligned(as: Int8.self)))
        case GGUF_TYPE_UINT16: return .uint(UInt64(data.loadUnaligned(as: UInt16.self)))
        case GGUF_TYPE_INT16: return .int(Int64(data.loadUnaligned(as: Int16.self)))
        case GGUF_TYPE_UINT32: return .uint(UInt64(data.loadUnaligned(as: UInt32.self)))
        case GGUF_TYPE_INT32: return .int(Int64(data.loadUnaligned(as: Int32.self)))
        case GGUF_TYPE_UINT64: return .uint(data.loadUnaligned(as: UInt64.self))
        case GGUF_TYPE_INT64: return .int(data.loadUnaligned(as: Int64.self))
        case GGUF_TYPE_FLOAT32: return .float(Double(data.loadUnaligned(as: Float.self)))
        case GGUF_TYPE_FLOAT64: return .float(data.loadUnaligned(as: Double.self))
        case GGUF_TYPE_BOOL: return .bool(data.loadUnaligned(as: UInt8.self) != 0)
        default: return nil
        }
    }
}
