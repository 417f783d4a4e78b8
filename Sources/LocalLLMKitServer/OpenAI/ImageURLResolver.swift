import Foundation
import LocalLLMKit

/// Replaces the `http(s)` URLs of a chat request's `image_url` parts with `data:` URLs of what
/// they hold, fetched by the server's ``ModelServer/Configuration/mediaFetcher`` (which applies
/// the network policy and the size limit). Without a fetcher such a URL is a 400 that says how
/// to send the image instead.
enum ImageURLResolver {
    /// The most remote images one request may name.
    static let maximumFetches = 16

    static func resolve(_ body: RequestBody, fetcher: ModelServer.MediaFetcher?, maximumBytes: Int) async throws -> RequestBody {
        guard case .array(let messages)? = body["messages"] else { return body }
        var fetches = 0
        var resolved: [OrderedJSON] = []
        for (index, message) in messages.enumerated() {
            guard case .object(var fields) = message, let slot = fields.lastIndex(where: { $0.0 == "content" }),
                  case .array(var parts) = fields[slot].1 else {
                resolved.append(message)
                continue
            }
            for (number, part) in parts.enumerated() {
                guard let url = remoteURL(in: part) else { continue }
                let param = "messages[\(index)].content[\(number)].image_url"
                guard let fetcher else {
                    throw APIError.invalid("Image URLs are fetched only when the server allows it (llmkit serve --allow-image-urls); "
                                           + "send the image as a data: URL (data:image/png;base64,...).", param: param)
                }
                fetches += 1
                guard fetches <= maximumFetches else {
                    throw APIError.invalid("A request may name at most \(maximumFetches) image URLs.", param: param)
                }
                let data: Data
                do {
                    data = try await fetcher(url, maximumBytes)
                } catch {
                    let reason = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
                    throw APIError.invalid("The image at \(url.absoluteString) could not be fetched: \(reason)", param: param)
                }
                parts[number] = .object([("type", .string("image_url")),
                                         ("image_url", .object([("url", .string("data:application/octet-stream;base64,"
                                                                                + data.base64EncodedString()))]))])
            }
            fields[slot].1 = .array(parts)
            resolved.append(.object(fields))
        }
        var fields = body.fields
        if let slot = fields.lastIndex(where: { $0.0 == "messages" }) { fields[slot].1 = .array(resolved) }
        return RequestBody(fields: fields)
    }

    /// The `http(s)` URL of an `image_url` part, if it has one.
    private static func remoteURL(in part: OrderedJSON) -> URL? {
        guard case .object(let fields) = part, fields.last(where: { $0.0 == "type" })?.1 == .string("image_url") else { return nil }
        let value = fields.last(where: { $0.0 == "image_url" })?.1
        let text: String?
        switch value {
        case .string(let url)?: text = url
        case .object(let inner)?:
            if case .string(let url)? = inner.last(where: { $0.0 == "url" })?.1 { text = url } else { text = nil }
        default: text = nil
        }
        guard let text, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https" else { return nil }
        return url
    }
}
