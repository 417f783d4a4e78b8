import Foundation
import LocalLLMKit

extension ModelServer {
    /// A model that the server loads when a request needs it: its file and configuration.
    public struct Source: Sendable, Hashable {
        /// The GGUF file.
        public var url: URL
        /// How to load it.
        public var configuration: LocalModel.Configuration
        /// A chat template in place of the model's own: Jinja text, or the name of one of
        /// llama.cpp's built-in templates (`chatml`); nil keeps the model's.
        public var chatTemplate: String?

        /// A source for the file at `url`.
        public init(url: URL, configuration: LocalModel.Configuration = .init(), chatTemplate: String? = nil) {
            self.url = url
            self.configuration = configuration
            self.chatTemplate = chatTemplate
        }
    }
}
