import Foundation
import LocalLLMKit

/// `load_webpage`: fetches an http(s) page and returns its title and readable text.
///
/// Safe defaults: only http and https; hosts on loopback, private, link-local,
/// multicast or reserved addresses are refused before any connection (unless
/// ``Configuration/allowsPrivateNetworks``); redirects are checked the same way; the
/// fetch has a timeout and a byte cap (the text is then marked truncated); non-text
/// content is reported, not shown. The page's text reaches the model as a tool
/// result, which it reads as data, not as instructions.
///
/// The default fetcher, ``CurlFetcher``, also checks the address of every connection it
/// makes, so a name that resolves to a public address for the check and to a private one
/// for the connection (DNS rebinding) is refused too. The timeout bounds the whole call:
/// name lookups, connections, headers, body and every redirect.
public struct WebPageTool: ConversationTool {
    /// Limits and permissions.
    public struct Configuration: Sendable, Equatable {
        /// The longest a fetch may take.
        public var timeout: Duration
        /// The most bytes read from the body.
        public var maximumBytes: Int
        /// The most characters of text given to the model.
        public var maximumCharacters: Int
        /// Allow loopback and private addresses (tests, a trusted intranet). Off by default.
        public var allowsPrivateNetworks: Bool

        /// Creates a configuration; every argument has a default.
        public init(timeout: Duration = .seconds(10), maximumBytes: Int = 2_000_000, maximumCharacters: Int = 12_000,
                    allowsPrivateNetworks: Bool = false) {
            self.timeout = timeout
            self.maximumBytes = maximumBytes
            self.maximumCharacters = maximumCharacters
            self.allowsPrivateNetworks = allowsPrivateNetworks
        }
    }

    /// The page to load.
    public struct Arguments: Decodable, StructuredOutput {
        /// An http or https URL.
        public var url: String

        /// Creates the arguments, to call the tool directly.
        public init(url: String) {
            self.url = url
        }

        /// Describes the field for the model.
        public static let outputHints: [String: OutputSchema.Hint] = ["url": "The http or https URL of the page"]
    }

    /// What the model receives.
    public struct Page: Encodable, Sendable, Equatable {
        /// The final URL, after redirects.
        public var url: String
        /// The page's title.
        public var title: String?
        /// Its readable text.
        public var text: String
        /// Whether the text was cut (byte or character limit).
        public var truncated: Bool
    }

    /// `load_webpage`.
    public let name = "load_webpage"
    /// What the model is told.
    public let description = "Loads a web page (http or https) and returns its title and readable text."
    /// The limits in force.
    public let configuration: Configuration
    private let fetcher: any WebPageTool.Fetcher

    /// Creates the tool, fetching through libcurl (connecting only to the address it checked).
    /// - Parameter configuration: timeout, byte and character caps, private networks.
    public init(configuration: Configuration = .init()) {
        self.init(configuration: configuration, fetcher: CurlFetcher())
    }

    /// Creates the tool with a fetcher of your own (a proxy, a cache); it must apply the
    /// configuration's network policy and limits itself.
    public init(configuration: Configuration, fetcher: any WebPageTool.Fetcher) {
        self.configuration = configuration
        self.fetcher = fetcher
    }

    /// Loads the page.
    /// - Throws: ``WebPageTool/FetchError`` naming what was refused (`.refused`), took too long
    ///   (`.timedOut`) or went wrong.
    public func call(_ arguments: Arguments) async throws -> Page {
        guard let url = URL(string: arguments.url.trimmingCharacters(in: .whitespaces)) else {
            throw WebPageTool.FetchError("\(arguments.url) is not a URL")
        }
        let fetched = try await fetch(url)
        guard (200..<300).contains(fetched.statusCode) else {
            throw WebPageTool.FetchError("the server answered HTTP \(fetched.statusCode) for \(fetched.url.absoluteString)")
        }
        let type = Self.mediaType(fetched.contentType)
        let isText = type.hasPrefix("text/") || ["application/xhtml+xml", "application/xml", "application/json"].contains(type)
        guard isText, !fetched.body.prefix(4096).contains(0) else {
            throw WebPageTool.FetchError("\(fetched.url.absoluteString) is not a text page (\(type.isEmpty ? "unknown type" : type), \(fetched.body.count) bytes or more)")
        }
        var title: String?
        var text: String
        if type == "text/html" || type == "application/xhtml+xml" {
            let html = HTMLText(data: fetched.body, url: fetched.url.absoluteString, encoding: Self.charset(fetched.contentType))
            (title, text) = (html.title, html.text)
        } else {
            text = String(decoding: fetched.body, as: UTF8.self)
        }
        var truncated = fetched.isTruncated
        if text.count > configuration.maximumCharacters {
            text = String(text.prefix(configuration.maximumCharacters))
            truncated = true
        }
        return Page(url: fetched.url.absoluteString, title: title, text: text, truncated: truncated)
    }

    /// Checks `url` against the network policy and fetches it, all within the timeout.
    private func fetch(_ url: URL) async throws -> WebPageTool.FetchedPage {
        let policy = NetworkPolicy(allowsPrivateNetworks: configuration.allowsPrivateNetworks)
        let (fetcher, timeout, maximumBytes) = (self.fetcher, configuration.timeout, configuration.maximumBytes)
        let deadline = Deadline.after(timeout)
        return try await Deadline.run(until: deadline, orThrow: { WebPageTool.FetchError.timedOut(url, after: timeout) }) {
            // The name lookup blocks, for as long as the resolver likes: on a thread of its
            // own it cannot hold the call past the deadline.
            if let refusal = try await BlockingWork.run({ policy.refusal(for: url) }) {
                throw WebPageTool.FetchError(refusal, kind: .refused)
            }
            do {
                return try await fetcher.fetch(url, timeout: deadline - .now, maximumBytes: maximumBytes,
                                               allowsPrivateNetworks: policy.allowsPrivateNetworks) { policy.refusal(for: $0) }
            } catch let error as WebPageTool.FetchError where error.kind == .timedOut {
                throw WebPageTool.FetchError.timedOut(url, after: timeout)   // the limit the caller set, not what was left of it
            }
        }
    }

    private static func mediaType(_ contentType: String?) -> String {
        (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    private static func charset(_ contentType: String?) -> String? {
        guard let contentType, let range = contentType.range(of: "charset=", options: .caseInsensitive) else { return nil }
        return contentType[range.upperBound...].split(separator: ";").first.map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
        }
    }
}
