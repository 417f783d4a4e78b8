import Foundation

extension LocalModel.Configuration {
    /// What the model reads and where its layers compute: the weights and what is applied over them
    /// (adapters, control vectors, a projector), and the devices that hold them.
    ///
    /// The configuration's field-by-field initializer sets every group at once; a group is for reading
    /// and changing the fields of one concern together.
    public struct Weights: Sendable, Hashable {
        /// Layers to offload to the GPU (and to the devices of ``rpcServers``); `nil` means all
        /// of them when this machine has a GPU or ``rpcServers`` names servers, 0 keeps
        /// everything on this machine's CPU.
        public var gpuLayers: Int?
        /// Let llama.cpp map the file into memory where that helps (its default);
        /// false reads the weights into allocated memory instead.
        public var usesMemoryMap: Bool
        /// Load only the vocabulary and metadata, not the weights: enough to tokenize and
        /// render chat templates, fast, but the model cannot generate.
        public var vocabularyOnly: Bool
        /// Whether the CPU repacks quantized weights into its other layouts (llama.cpp's
        /// `--repack`); nil (the default) and false: no, the weights keep the file's layout.
        /// Repacked weights multiply one row and several rows in different orders, so a batch's
        /// logits differ from one token's in their last bits, and a model loaded with speculation
        /// would answer greedily other than the same model without it, from its first token on
        /// (see ``Speculation``). Repacking changed no speed measurable on this project's test
        /// CPU (docs/PERFORMANCE.md); `true` turns it on where it pays.
        public var repacksWeights: Bool?
        /// llama.cpp RPC servers (`ggml-rpc`, such as `llmkit rpc-server`) whose devices hold some
        /// of the model's layers, as `host:port`. The offloaded layers (``gpuLayers``; nil: all)
        /// are split over the remote devices and this machine's GPUs in proportion to their free
        /// memory, or by ``tensorSplit``; the rest stay on this machine's CPU. ggml-rpc has no
        /// authentication or encryption: use servers on a network you trust. A server that goes
        /// away fails the model's requests with ``LocalModel/Error/remoteDeviceLost(endpoint:reason:)``.
        public var rpcServers: [String]
        /// The share of offloaded layers each device takes (llama.cpp's `--tensor-split`): the
        /// remote devices of ``rpcServers`` in order, then this machine's GPUs; nil: in
        /// proportion to their free memory.
        public var tensorSplit: [Double]?
        /// LoRA adapters applied over the weights, each at its scale (see ``Adapter``); checked
        /// against the model before llama.cpp reads them.
        public var adapters: [Adapter]
        /// Control vectors added to the hidden state, each at its scale and summed (see
        /// ``ControlVector``); checked against the model before its weights are read.
        public var controlVectors: [ControlVector]
        /// The layers the control vectors steer, both ends included (llama.cpp's
        /// `--control-vector-layer-range`); nil: every layer from 1.
        public var controlVectorLayers: ClosedRange<Int>?
        /// The projector that lets the model take images (or audio): ``Projector/automatic``
        /// (the default) finds one beside the model file.
        public var projector: Projector

        /// Creates the group; every argument has a default.
        public init(
            gpuLayers: Int? = nil,
            usesMemoryMap: Bool = true,
            vocabularyOnly: Bool = false,
            repacksWeights: Bool? = nil,
            rpcServers: [String] = [],
            tensorSplit: [Double]? = nil,
            adapters: [Adapter] = [],
            controlVectors: [ControlVector] = [],
            controlVectorLayers: ClosedRange<Int>? = nil,
            projector: Projector = .automatic
        ) {
            self.gpuLayers = gpuLayers
            self.usesMemoryMap = usesMemoryMap
            self.vocabularyOnly = vocabularyOnly
            self.repacksWeights = repacksWeights
            self.rpcServers = rpcServers
            self.tensorSplit = tensorSplit
            self.adapters = adapters
            self.controlVectors = controlVectors
            self.controlVectorLayers = controlVectorLayers
            self.projector = projector
        }
    }
}
