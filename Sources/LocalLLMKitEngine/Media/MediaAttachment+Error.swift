import Foundation

extension MediaAttachment {
    /// Why an attachment cannot be used. Each case names what was wrong.
    public enum Error: Swift.Error, LocalizedError, Equatable {
        /// The file could not be read.
        case unreadable(path: String, reason: String)
        /// An attachment is larger than ``Limits/bytes``.
        case tooManyBytes(bytes: Int, limit: Int)
        /// An image declares more pixels, or a longer side, than the limits allow.
        case tooManyPixels(width: Int, height: Int, limit: Int)
        /// A request carries more attachments than ``Limits/count``.
        case tooMany(count: Int, limit: Int)
        /// The bytes are not an image or clip that can be decoded (with the format, when it was recognized).
        case invalid(index: Int, reason: String)
        /// The model's projector does not take this kind of medium (audio for a vision projector).
        case unsupportedKind(index: Int, kind: String)

        /// One line that says what was wrong.
        public var errorDescription: String? {
            switch self {
            case .unreadable(let path, let reason):
                "cannot read the attachment \(path): \(reason)"
            case .tooManyBytes(let bytes, let limit):
                "an attachment has \(bytes) bytes; the limit is \(limit)"
            case .tooManyPixels(let width, let height, let limit):
                "an image of \(width) × \(height) pixels is over the limit of \(limit) pixels"
            case .tooMany(let count, let limit):
                "\(count) attachments in one request; the limit is \(limit)"
            case .invalid(let index, let reason):
                "attachment \(index + 1) is not a usable image or clip: \(reason)"
            case .unsupportedKind(let index, let kind):
                "attachment \(index + 1) is \(kind), which this model's projector does not take"
            }
        }
    }
}
