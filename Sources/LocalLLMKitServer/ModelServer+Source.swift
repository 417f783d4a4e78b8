import Foundation
import LocalLLMKit

extension ModelServer {
    /// A model that the server loads when a request needs it: its file and configuration.
    public struct Source: Sendable, Hashable {
        /// The GGUF file.
        public var url: URL
        /// How to load it.
        public var configuration: LocalModel.Configuration

        /// A source for the file at `url`.
        public init(url: URL, configuration: LocalModel.Configuration = .init()) {
            self.url = url
            self.configuration = configuration
        }
    }
}
