import LocalLLMKit

/// llama-server's list of adapter scales, `[{"id": 0, "scale": 0.5}, …]`: a request's `lora`
/// field, and the body of `POST /lora-adapters`. Ids are places in the model's adapter list
/// (`GET /lora-adapters`); adapters not listed are off (scale 0), as llama-server takes them,
/// except that a request's empty list asks for the model's scales, as llama-server's does. An id
/// the model does not have is a 400 that names it, where llama-server ignores it.
enum AdapterScaleList {
    /// The largest scale magnitude accepted (llama.cpp takes any float; far beyond 1 a scale is a mistake).
    static let maximumScale = 1_000.0

    /// One scale per adapter of a model with `adapterCount` adapters, from `value`.
    /// - Parameter param: the field's name in errors.
    static func scales(_ value: OrderedJSON, adapterCount: Int, param: String) throws(APIError) -> [Float] {
        guard case .array(let items) = value else {
            throw .invalid("'\(param)' must be an array of objects with 'id' and 'scale'.", param: param)
        }
        var scales = [Float](repeating: 0, count: adapterCount)
        for (index, item) in items.enumerated() {
            guard case .object(let fields) = item else {
                throw .invalid("'\(param)[\(index)]' must be an object with 'id' and 'scale'.", param: param)
            }
            let entry = RequestBody(fields: fields)
            guard let id = try entry.integer("id", in: 0...Int(Int32.max)) else {
                throw .invalid("'\(param)[\(index)]' has no 'id'.", param: param)
            }
            guard id < adapterCount else {
                throw .invalid("'\(param)[\(index)]' names adapter \(id), but the model has \(adapterCount) "
                               + "(ids 0 to \(adapterCount - 1); GET /lora-adapters lists them).", param: param)
            }
            scales[id] = Float(try entry.number("scale", in: -maximumScale...maximumScale, label: "\(param)[\(index)].scale",
                                                param: param) ?? 0)
        }
        return scales
    }
}
