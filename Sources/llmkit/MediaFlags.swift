import Foundation
import LocalLLMKit

/// The image flags of `run` and `chat`: what to attach, and the projector that reads it.
enum MediaFlags {
    /// The flags.
    static let all: [Flag] = [
        Flag("--image", value: "FILE", repeatable: true, help: """
            attach an image (PNG, JPEG, BMP or GIF; or a WAV, MP3 or FLAC clip for
            a projector that takes sound) to the prompt; repeatable; the model
            needs a projector
            """),
        Flag("--mmproj", value: "FILE", help: "the projector (an mmproj GGUF); default: an mmproj*.gguf beside the model"),
        Flag("--no-mmproj", help: "load no projector"),
    ]

    /// The help text.
    static var help: String { Flag.help(all) }

    /// Applies `--mmproj` and `--no-mmproj` to `configuration`.
    static func configure(_ configuration: inout LocalModel.Configuration, _ arguments: ParsedArguments) throws {
        if arguments.has("--no-mmproj") {
            guard arguments.value("--mmproj") == nil else { throw UsageError(message: "--mmproj and --no-mmproj contradict each other") }
            configuration.weights.projector = .none
        } else if let path = arguments.value("--mmproj") {
            configuration.weights.projector = .file(URL(filePath: path))
        }
    }

    /// The attachments of `--image`, read now (each file bounded by the model's limit).
    static func attachments(_ arguments: ParsedArguments) throws -> [MediaAttachment] {
        try arguments.allValues("--image").map { path in
            try MediaAttachment.image(contentsOf: URL(filePath: path))
        }
    }
}
