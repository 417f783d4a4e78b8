extension MediaAttachment {
    /// How much media one request may carry. Every bound is checked before anything is
    /// decoded, so a hostile file costs no more than these.
    public struct Limits: Sendable, Hashable {
        /// The most bytes one attachment may have (encoded, or raw pixels).
        public var bytes: Int
        /// The most pixels (width × height) an image may declare.
        public var pixels: Int
        /// The largest width or height an image may declare.
        public var side: Int
        /// The most attachments one request may carry, over all its messages.
        public var count: Int

        /// Limits of your own.
        public init(bytes: Int = 20 << 20, pixels: Int = 16 << 20, side: Int = 16_384, count: Int = 16) {
            self.bytes = bytes
            self.pixels = pixels
            self.side = side
            self.count = count
        }

        /// 20 MiB per attachment, 16 megapixels (for example 4096 × 4096), no side over
        /// 16,384 pixels, and 16 attachments per request.
        public static let `default` = Limits()
    }
}
