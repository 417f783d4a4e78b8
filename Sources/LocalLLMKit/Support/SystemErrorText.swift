import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain words for the errors that Foundation and the system raise, where Foundation's own text
/// would show a domain and a number ("The operation could not be completed. (NSURLErrorDomain
/// error -1004.)").
package enum SystemErrorText {
    /// One phrase for `error`: the system's reason for a file error ("No space left on device"),
    /// what happened to a connection ("the connection was refused"), else the error's own text.
    package static func describe(_ error: any Error) -> String {
        if let localized = error as? LocalizedError, !(error is URLError), !(error is CocoaError),
           let text = localized.errorDescription {
            return text
        }
        if let url = error as? URLError, let phrase = phrase(for: url.code) { return phrase }
        var current = error as NSError
        while let underlying = current.userInfo[NSUnderlyingErrorKey] as? NSError { current = underlying }
        switch current.domain {
        case NSPOSIXErrorDomain:
            return String(cString: strerror(Int32(current.code)))
        case NSURLErrorDomain:
            if let code = Optional(URLError.Code(rawValue: current.code)).flatMap({ $0 }), let phrase = phrase(for: code) { return phrase }
        case NSCocoaErrorDomain:
            if let phrase = phrase(forCocoa: current.code) { return phrase }
        default:
            break
        }
        let text = current.localizedDescription
        let generic = "The operation could not be completed."
        guard text.hasPrefix(generic) else { return text }
        let rest = text.dropFirst(generic.count).trimmingCharacters(in: .whitespaces)
        return rest.isEmpty || rest.contains("Domain") ? "failed (\(current.domain) \(current.code))" : rest
    }

    private static func phrase(for code: URLError.Code) -> String? {
        switch code {
        case .cannotConnectToHost: "the connection was refused (nothing listens there)"
        case .cannotFindHost, .dnsLookupFailed: "the host name could not be resolved"
        case .timedOut: "no answer in time (timed out)"
        case .networkConnectionLost: "the connection was lost"
        case .notConnectedToInternet: "there is no network connection"
        case .badServerResponse: "the server's answer was not HTTP"
        case .badURL, .unsupportedURL: "the URL cannot be fetched"
        case .secureConnectionFailed: "the TLS connection failed"
        case .cancelled: "cancelled"
        default: nil
        }
    }

    private static func phrase(forCocoa code: Int) -> String? {
        switch CocoaError.Code(rawValue: code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: "no such file or directory"
        case .fileReadNoPermission, .fileWriteNoPermission: "permission denied"
        case .fileWriteOutOfSpace: "no space left on device"
        case .fileReadTooLarge: "the file is too large"
        case .fileWriteVolumeReadOnly: "the volume is read-only"
        case .fileReadInapplicableStringEncoding, .fileReadUnknownStringEncoding: "it is not UTF-8 text"
        case .fileWriteFileExists: "a file is already there"
        default: nil
        }
    }
}
