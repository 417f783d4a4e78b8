import Foundation
import LocalLLMKit

/// The image flags of `run` and `chat`: what to attach, and the projector that reads it.
enum MediaFlags {
    /// The value options it adds.
    static let valueOptions: Set<String> = ["--image", "--mmproj"]
    /// The flags it adds.
    static let flagOptions: Set<String> = ["--no-mmproj"]
    /// `--image` may repeat.
    static let repeatableOptions: Set<String> = ["--image"]
    /// The help text.
    static let help = """
      --image FILE             attach an image (PNG, JPEG, BMP or GIF; or a WAV, MP3 or FLAC clip for
                               a projector that takes sound) to the prompt; repeatable; the model
                               needs a projector
      --mmproj FILE            the projector (an mmproj GGUF); default: an mmproj*.gguf beside the model
      --no-mmproj              load no projector
    """

    /// Applies `--mmproj` and `--no-mmproj` to `configuration`.
    static func configure(_ configuration: inout LocalModel.Configuration, _ arguments: ParsedArguments) throws {
        if arguments.has("--no-mmproj") {
            guard arguments.value("--mmproj") == nil else { throw UsageError(message: "--mmproj and --no-mmproj contradict each other") }
            configuration.projector = .none
        } else if let path = arguments.value("--mmproj") {
            configuration.projector = .file(URL(filePath: path))
        }
    }

    /// The attachments of `--image`, read now (each file bounded by the model's limit).
    static func attachments(_ arguments: ParsedArguments) throws -> [MediaAttachment] {
        try arguments.allValues("--image").map { path in
            try MediaAttachment.image(contentsOf: URL(filePath: path))
        }
    }
}
