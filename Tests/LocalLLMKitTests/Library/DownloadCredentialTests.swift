import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import LocalLLMKit

/// Issue 32 point 9: a user name and password in a download URL are kept apart from the URL
/// (never stored, keyed or printed) and sent to their own origin only. The CLI's tests
/// (PullCredentialTests) follow them through real transfers and redirects.
@Suite("Credentials in download URLs")
struct DownloadCredentialTests {
    @Test("Daemon #9: a request holds its URLs without user name and password, and names the credential by origin only")
    func requestKeepsCredentialsApart() throws {
        let request = try ModelLibrary.DownloadRequest(reference: "http://alice:p%40ss-secret@Models.Example:8080/m/tiny.gguf",
                                                       mirrors: [URL(string: "http://models.example:8080/mirror/tiny.gguf")!,
                                                                 URL(string: "https://models.example:8080/tiny.gguf")!])
        #expect(request.urls.map(\.absoluteString) == ["http://Models.Example:8080/m/tiny.gguf",
                                                       "http://models.example:8080/mirror/tiny.gguf",
                                                       "https://models.example:8080/tiny.gguf"])
        let credential = try #require(request.credential(for: request.urls[0]))
        #expect(credential.authorization == "Basic " + Data("alice:p@ss-secret".utf8).base64EncodedString())
        #expect(request.credential(for: request.urls[1]) == credential)          // the same origin, any path
        #expect(request.credential(for: request.urls[2]) == nil)                 // another scheme is another origin
        for text in [String(describing: request), String(reflecting: request), "\(credential)"] {
            #expect(!text.contains("secret") && !text.contains("alice"), "\(text)")
        }
        var dumped = ""
        dump(request, to: &dumped)
        #expect(!dumped.contains("secret"), "\(dumped)")
    }

    @Test("Daemon #9: errors about a URL never repeat its password", arguments: [
        "ftp://bob:secret@example.com/tiny.gguf", "http://bob:secret@example.com/../tiny.gguf", "https://bob:secret@[bad",
    ])
    func errorsAreRedacted(reference: String) throws {
        #expect {
            try ModelLibrary.DownloadRequest(reference: reference)
        } throws: { error in
            let description = (error as? ModelLibrary.Error)?.errorDescription ?? ""
            return description.hasPrefix("invalid model reference") && !description.contains("secret")
        }
        #expect(DownloadCredential.redacted(reference).contains("bob") == false)
    }

    @Test("Daemon #9: two URLs of one origin with different passwords are refused")
    func conflictingCredentials() throws {
        #expect(throws: ModelLibrary.Error.self) {
            try ModelLibrary.DownloadRequest(urls: [URL(string: "http://a:one@127.0.0.1:9/x.gguf")!,
                                                    URL(string: "http://a:two@127.0.0.1:9/y.gguf")!])
        }
    }

    @Test("Daemon #9: a redirected request carries Authorization to the credential's origin only, and no user name in its URL")
    func redirectedRequests() throws {
        let request = try ModelLibrary.DownloadRequest(urls: [URL(string: "https://u:secret@host.example/model.gguf")!])
        let credential = try #require(request.credential(for: request.urls[0]))
        func prepared(_ url: String) throws -> URLRequest {
            var redirected = URLRequest(url: URL(string: url)!)
            redirected.setValue("Basic stale", forHTTPHeaderField: "Authorization")      // copied by Foundation
            return try #require(DownloadCredential.prepare(redirected, credential: credential))
        }
        #expect(try prepared("https://host.example/other.gguf").value(forHTTPHeaderField: "Authorization") == credential.authorization)
        #expect(try prepared("https://HOST.example:443/x").value(forHTTPHeaderField: "Authorization") == credential.authorization)
        for elsewhere in ["https://cdn.example/model.gguf", "http://host.example/model.gguf", "https://host.example:8443/model.gguf",
                          "https://u:secret@cdn.example/model.gguf"] {
            let request = try prepared(elsewhere)
            #expect(request.value(forHTTPHeaderField: "Authorization") == nil, "\(elsewhere)")
            #expect(request.url?.absoluteString.contains("secret") == false, "\(elsewhere)")
        }
    }
}
