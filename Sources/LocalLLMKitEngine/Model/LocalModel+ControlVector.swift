import CLlama
import Foundation

extension LocalModel.Configuration {
    /// A control vector added to the model's hidden state (llama.cpp's `--control-vector` and
    /// `--control-vector-scaled`): one direction per layer, written by a tool such as llama.cpp's
    /// `cvector-generator`, that steers every answer (towards a mood, a persona, a style)
    /// without changing the weights.
    public struct ControlVector: Sendable, Hashable {
        /// The control vector's GGUF file: F32 tensors `direction.1`, `direction.2`, … of the
        /// model's embedding width.
        public var url: URL
        /// How strongly it steers: each direction is multiplied by it before the vectors are
        /// summed; a negative scale steers the other way, 0 not at all.
        public var scale: Float

        /// The control vector at `url`, at `scale`.
        public init(url: URL, scale: Float = 1) {
            self.url = url
            self.scale = scale
        }
    }
}

/// The configuration's control vectors, read, checked and summed: what
/// `llama_set_adapter_cvec` takes for every context of the model.
package struct ControlVectorSteering: Sendable {
    /// Layer 1's direction first, then layer 2's…: `width` values each.
    let directions: [Float]
    /// The model's embedding width.
    let width: Int32
    /// The layers it applies to (llama.cpp's `--control-vector-layer-range`, inclusive).
    let layers: ClosedRange<Int32>

    /// Reads `vectors` for the model `file`, whose `handle` is not loaded yet, checking what
    /// llama.cpp's reader refuses (names, types, shapes) with the reason named, and what it would
    /// accept and then compute with (a NaN, a direction for a layer the model does not have).
    /// - Parameter layers: the layers to steer; nil: all of them, from 1.
    /// - Returns: nil without vectors.
    /// - Throws: ``LocalModel/Error/invalidControlVector(path:reason:)``, or
    ///   ``LocalModel/Error/invalidOption(name:reason:)`` for a layer range beyond the model's.
    package static func read(_ vectors: [LocalModel.Configuration.ControlVector], layers: ClosedRange<Int>?,
                             for file: GGUFFile) throws -> ControlVectorSteering? {
        guard !vectors.isEmpty else { return nil }
        let architecture = file.architecture ?? ""
        guard let width = file.metadata["\(architecture).embedding_length"]?.intValue, width > 0,
              let layerCount = file.metadata["\(architecture).block_count"]?.intValue, layerCount > 1 else {
            throw LocalModel.Error.invalidControlVector(path: vectors[0].url.path,
                                                        reason: "the model names no embedding width and layer count to steer")
        }
        let range = layers ?? 1...layerCount
        guard range.lowerBound >= 1, range.upperBound <= layerCount else {
            throw LocalModel.Error.invalidOption(name: "controlVectorLayers",
                                                 reason: "\(range.lowerBound)...\(range.upperBound) is beyond the model's layers 1...\(layerCount)")
        }
        // Every header first: the sum is sized by the layers the files hold, each a direction
        // of the model's width that fits in its file, never by what a model's header claims.
        let checked = try vectors.map { try (vector: $0, layers: directionLayers(of: $0, width: width, lastLayer: layerCount - 1)) }
        var sum = [Float](repeating: 0, count: width * (checked.flatMap { $0.layers.map(\.layer) }.max() ?? 0))
        for (vector, layers) in checked {
            try add(vector, layers: layers, width: width, into: &sum)
        }
        return ControlVectorSteering(directions: sum, width: Int32(width),
                                     layers: Int32(range.lowerBound)...Int32(range.upperBound))
    }

    /// The `invalidControlVector` error of `vector`.
    private static func refusal(_ vector: LocalModel.Configuration.ControlVector, _ reason: String) -> LocalModel.Error {
        .invalidControlVector(path: vector.url.path, reason: reason)
    }

    /// Checks `vector`'s header before any data is read: every tensor one F32 direction of the
    /// model's width, for a layer the model has.
    /// - Returns: its tensors' names and layers, in file order.
    private static func directionLayers(of vector: LocalModel.Configuration.ControlVector, width: Int,
                                        lastLayer: Int) throws -> [(name: String, layer: Int)] {
        func refuse(_ reason: String) -> LocalModel.Error { refusal(vector, reason) }
        let header: GGUFFile
        do {
            header = try GGUFFile(contentsOf: vector.url)
        } catch {
            throw refuse("it is not a readable GGUF file: \((error as? LocalizedError)?.errorDescription ?? "\(error)")")
        }
        guard !header.tensors.isEmpty else { throw refuse("it holds no direction tensors") }
        return try header.tensors.map { tensor in
            guard tensor.name.hasPrefix("direction."), let layer = Int(tensor.name.dropFirst("direction.".count)) else {
                throw refuse("its tensor \(tensor.name) is not named direction.LAYER")
            }
            guard (1...lastLayer).contains(layer) else {
                throw refuse("\(tensor.name) steers layer \(layer), but the model's steerable layers are 1 to \(lastLayer)")
            }
            guard tensor.isFloat32 else { throw refuse("\(tensor.name) is \(tensor.typeName), not f32") }
            guard tensor.dimensions == [Int64(width)] else {
                throw refuse("\(tensor.name) has shape \(tensor.dimensions), but the model's embedding width is \(width)")
            }
            return (tensor.name, layer)
        }
    }

    /// Adds the directions `layers` names in `vector`, times its scale, to `sum`.
    private static func add(_ vector: LocalModel.Configuration.ControlVector, layers: [(name: String, layer: Int)],
                            width: Int, into sum: inout [Float]) throws {
        func refuse(_ reason: String) -> LocalModel.Error { refusal(vector, reason) }
        var tensorContext: OpaquePointer?
        let (gguf, errors) = LlamaLog.collectingErrors {
            withUnsafeMutablePointer(to: &tensorContext) { gguf_init_from_file(vector.url.path, gguf_init_params(no_alloc: false, ctx: $0)) }
        }
        defer {
            if let gguf { gguf_free(gguf) }
            if let tensorContext { ggml_free(tensorContext) }
        }
        guard gguf != nil, let tensorContext else { throw refuse("its tensors cannot be read: \(errors.summary ?? "truncated or damaged")") }
        // As llama.cpp sums them: each file's directions in file order, then the files.
        var directions = [Float](repeating: 0, count: sum.count)
        for (name, layer) in layers {
            // The file may have changed since its header was read: check the tensor again.
            guard let tensor = ggml_get_tensor(tensorContext, name), tensor.pointee.type == GGML_TYPE_F32,
                  ggml_n_dims(tensor) == 1, ggml_nelements(tensor) == width, let data = ggml_get_data_f32(tensor) else {
                throw refuse("\(name) changed while it was read")
            }
            let values = UnsafeBufferPointer(start: data, count: width)
            if let bad = values.firstIndex(where: { !$0.isFinite }) {
                throw refuse("\(name) holds \(values[bad]) at \(bad), not a finite number")
            }
            let offset = (layer - 1) * width
            for index in 0..<width { directions[offset + index] += values[index] * vector.scale }
        }
        for index in sum.indices { sum[index] += directions[index] }
    }

    /// Applies the directions to `context`.
    /// - Returns: false when llama.cpp refuses them.
    func apply(to context: OpaquePointer) -> Bool {
        directions.withUnsafeBufferPointer { buffer in
            llama_set_adapter_cvec(context, buffer.baseAddress, buffer.count, width, layers.lowerBound, layers.upperBound) == 0
        }
    }
}
