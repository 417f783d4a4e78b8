import Foundation

extension ModelServer {
    /// Fetches the bytes at a URL, at most a given number of them (see
    /// ``Configuration/mediaFetcher``). Two fetchers are equal when they are the same value.
    public struct MediaFetcher: Sendable, Equatable {
        private let fetch: @Sendable (URL, Int) async throws -> Data
        private let id = UUID()

        /// A fetcher that calls `fetch(url, maximumBytes)`; it throws for a URL it refuses or
        /// a body larger than `maximumBytes`.
        public init(_ fetch: @escaping @Sendable (URL, Int) async throws -> Data) {
            self.fetch = fetch
        }

        func callAsFunction(_ url: URL, _ maximumBytes: Int) async throws -> Data {
            try await fetch(url, maximumBytes)
        }

        public static func == (lhs: MediaFetcher, rhs: MediaFetcher) -> Bool { lhs.id == rhs.id }
    }
}
