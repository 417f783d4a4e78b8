import Foundation

extension LocalModel.Configuration {
    /// How requests share the model: how many generate at once, how many may wait, how tokens are drafted
    /// ahead, and how much media one request may carry.
    ///
    /// The configuration's field-by-field initializer sets every group at once; a group is for reading
    /// and changing the fields of one concern together.
    public struct Serving: Sendable, Hashable {
        /// How many requests generate at once (llama.cpp's `n_seq_max`): completions and
        /// conversation turns share one context, and every decode step advances all of them
        /// together. Each sequence may hold ``contextLength`` tokens, so the KV cache grows
        /// with this number (and only with it, not with the number of conversations).
        public var parallelSequences: Int
        /// How many requests may wait for a free sequence; one more is refused with
        /// ``LocalModel/Error/busy(queuedRequests:)``.
        public var maximumQueuedRequests: Int
        /// How generation drafts tokens ahead (see ``Speculation``); ``Speculation/none`` by default.
        public var speculation: Speculation
        /// How much media one request may carry (see ``MediaAttachment/Limits``).
        public var mediaLimits: MediaAttachment.Limits

        /// Creates the group; every argument has a default.
        public init(
            parallelSequences: Int = 1,
            maximumQueuedRequests: Int = 64,
            speculation: Speculation = .none,
            mediaLimits: MediaAttachment.Limits = .default
        ) {
            self.parallelSequences = parallelSequences
            self.maximumQueuedRequests = maximumQueuedRequests
            self.speculation = speculation
            self.mediaLimits = mediaLimits
        }
    }
}
