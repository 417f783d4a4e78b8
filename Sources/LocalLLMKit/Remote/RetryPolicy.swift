import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which failed requests are worth another attempt, and after how long.
enum RetryPolicy {
    /// Statuses that say "not now" rather than "no": too many requests, and a gateway or
    /// server that is overloaded, starting (llama-server answers 503 while it loads) or away.
    static func isRetryable(status: Int) -> Bool {
        [429, 502, 503, 504].contains(status)
    }

    /// Connection failures before any response: the server was not listening yet, or the
    /// connection broke before it answered.
    static func isRetryable(_ code: URLError.Code) -> Bool {
        [.cannotConnectToHost, .networkConnectionLost].contains(code)
    }

    /// The pause before retry number `retry` (0 for the first): `base`, doubled each time
    /// (at most 2⁶ times), plus up to a quarter of it at random so that clients spread out.
    static func delay(beforeRetry retry: Int, base: Duration) -> Duration {
        let pause = base * (1 << min(retry, 6))
        return pause + pause * Double.random(in: 0..<0.25)
    }

    /// How long a response asked to wait: `retry-after-ms` (OpenAI), else `Retry-After` as
    /// seconds or as an HTTP date; nil when neither says.
    static func retryAfter(seconds: String?, milliseconds: String?, now: Date = Date()) -> Duration? {
        if let milliseconds, let value = Double(milliseconds.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0 {
            return .milliseconds(min(value, 1e12))
        }
        guard let text = seconds?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let value = Int(text) {
            return value >= 0 ? .seconds(min(value, 1 << 40)) : nil
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up))))
    }
}
