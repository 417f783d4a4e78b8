import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A user name and password taken out of a download URL (`https://user:password@host/…`).
/// The URL is then stored, keyed, matched and printed without them, and they are sent, as
/// HTTP Basic authentication, only to the origin (scheme, host and port) of the URL they
/// came with: never to another host, not even after a redirect there. They are never
/// written to disk, and printing a credential shows its origin only.
package struct DownloadCredential: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// Where a credential may go: a URL's scheme, host and port (the scheme's default port
    /// when the URL names none), scheme and host lowercased.
    package struct Origin: Sendable, Hashable, CustomStringConvertible {
        /// `http` or `https`.
        package let scheme: String
        /// The host name or address.
        package let host: String
        /// The port.
        package let port: Int

        /// The origin of `url`; nil when it has no scheme or host.
        package init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        /// `scheme://host:port`.
        package var description: String { "\(scheme)://\(host):\(port)" }
    }

    /// Where it may be sent.
    package let origin: Origin
    /// The user name, percent-decoded.
    let user: String
    /// The password, percent-decoded.
    let password: String

    /// The value of the `Authorization` header: `Basic` and base64 of `user:password`.
    var authorization: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Names the origin only, never the user name or password.
    package var description: String { "credentials for \(origin)" }

    /// Shows the origin only, so that `dump` or a debugger never prints the password.
    package var customMirror: Mirror { Mirror(self, children: ["origin": origin]) }

    /// `url` without a user name and password, and those as a credential for its origin (nil
    /// when it had none, or only empty ones).
    /// - Returns: nil when the URL without them does not parse.
    package static func split(_ url: URL) -> (url: URL, credential: DownloadCredential?)? {
        let text = url.absoluteString
        let bare = redacted(text)
        guard bare != text else { return (url, nil) }
        guard let stripped = URL(string: bare) else { return nil }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let user = components?.user ?? "", password = components?.password ?? ""
        guard !(user.isEmpty && password.isEmpty), let origin = Origin(stripped) else { return (stripped, nil) }
        return (stripped, DownloadCredential(origin: origin, user: user, password: password))
    }

    /// `text` with the user name and password of the URL it starts with removed
    /// (`https://user:password@host/x` gives `https://host/x`); other text is returned as it is.
    /// For printing what a user typed, and records written before credentials were taken out.
    package static func redacted(_ text: String) -> String {
        guard let separator = text.range(of: "://") else { return text }
        let authority = text[separator.upperBound...].prefix { !"/?#".contains($0) }
        guard let at = authority.lastIndex(of: "@") else { return text }
        return String(text[..<separator.upperBound] + text[text.index(after: at)...])
    }

    /// `request` as it may be sent: no user name or password in its URL, and `Authorization`
    /// set to `credential` when the URL is of the credential's origin, removed otherwise (a
    /// redirect copies every header of the request it follows, this one included).
    /// - Returns: nil when its URL holds a user name or password that cannot be taken out.
    static func prepare(_ request: URLRequest, credential: DownloadCredential?) -> URLRequest? {
        var prepared = request
        if let url = request.url {
            guard let (stripped, _) = split(url) else { return nil }
            prepared.url = stripped
        }
        if let credential, let url = prepared.url, Origin(url) == credential.origin {
            prepared.setValue(credential.authorization, forHTTPHeaderField: "Authorization")
        } else {
            prepared.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        return prepared
    }
}
