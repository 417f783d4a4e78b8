import Foundation

/// Models loaded once per process and shared: ask for a model by library name or file and
/// configuration, and every caller gets the same ``LocalModel`` while it stays loaded.
///
/// A model that nobody has asked for during ``Policy/keepAlive`` and that generates nothing is
/// unloaded. Before a model is loaded, its memory is planned (``LocalModel/memoryPlan(for:configuration:)``);
/// when the models already loaded and the new one would need more than ``Policy/memoryBudget``
/// (by default, what the devices have free), idle models go first, the least recently used first.
/// Unloading drops this cache's reference; the memory is freed once nothing else (a
/// ``Conversation``, a request in flight) holds the model.
///
/// ```swift
/// let shared = LoadedModels.shared
/// let model = try await shared.model(named: "smollm2")         // loads it
/// let again = try await shared.model(named: "smollm2")         // the same model, at once
/// for entry in await shared.entries { print(entry.name, entry.memoryBytes, entry.lastUsed) }
/// await shared.unload(model)
/// ```
public actor LoadedModels {
    /// When models are unloaded.
    public struct Policy: Sendable, Equatable {
        /// How long a model stays loaded after its last use; nil: until it is unloaded or
        /// evicted.
        public var keepAlive: Duration?
        /// The bytes that loaded models may hold together on the devices that limit them; nil:
        /// whatever the devices have free when a model is loaded.
        public var memoryBudget: Int64?

        /// Creates a policy: five minutes of keep-alive (ollama's default), the free memory as budget.
        public init(keepAlive: Duration? = .seconds(300), memoryBudget: Int64? = nil) {
            self.keepAlive = keepAlive
            self.memoryBudget = memoryBudget
        }
    }

    /// A model this cache holds.
    public struct Entry: Sendable {
        /// The name it was asked for by (a library name), or the file's name.
        public var name: String
        /// Its file.
        public var url: URL
        /// The model.
        public var model: LocalModel
        /// The configuration it was loaded with.
        public var configuration: LocalModel.Configuration
        /// What it holds on the devices that limit it (weights, KV cache, compute buffers).
        public var memoryBytes: Int64
        /// When it was loaded.
        public var loadedAt: Date
        /// When it was last asked for.
        public var lastUsed: Date
        /// When it will be unloaded if nobody asks for it (nil: never by time).
        public var expiresAt: Date?
    }

    /// Why a model could not be made resident.
    public enum Error: Swift.Error, Equatable, LocalizedError {
        /// Even with every idle model unloaded, `name` (needing `required` bytes) does not fit
        /// the `available` ones.
        case insufficientMemory(name: String, required: Int64, available: Int64)

        /// A one-line description that names what was wrong.
        public var errorDescription: String? {
            switch self {
            case .insufficientMemory(let name, let required, let available):
                "\(name) needs \(ByteCount.format(required)), but only \(ByteCount.format(available)) can be had "
                    + "with every idle model unloaded"
            }
        }
    }

    /// The process's cache, with the default policy.
    public static let shared = LoadedModels()

    /// The policy it unloads by.
    public let policy: Policy
    private let library: ModelLibrary
    private var resident: [Key: Resident] = [:]
    private var loading: [Key: Task<LocalModel, any Swift.Error>] = [:]
    private var observers: [@Sendable (LocalModel) -> Void] = []
    private var sweeper: Task<Void, Never>?

    /// One model and configuration.
    private struct Key: Hashable {
        var path: String
        var configuration: LocalModel.Configuration
    }

    private struct Resident {
        var entry: Entry
        var model: LocalModel
    }

    /// A cache with its own `policy`, resolving names in `library`.
    public init(policy: Policy = .init(), library: ModelLibrary = ModelLibrary()) {
        self.policy = policy
        self.library = library
    }

    /// The model that `name` (a library id or name, `default`, a catalog id that is installed, or
    /// a path) names, loaded with `configuration` unless it already is.
    /// - Throws: ``ModelLibrary/Error/modelNotFound(_:)``, ``Error/insufficientMemory(name:required:available:)``,
    ///   or what loading throws.
    public func model(named name: String, configuration: LocalModel.Configuration = .init()) async throws -> LocalModel {
        try await model(at: try await library.file(named: name), name: name, configuration: configuration)
    }

    /// The model of the GGUF file at `url`, loaded with `configuration` unless it already is.
    /// - Throws: ``Error/insufficientMemory(name:required:available:)``, or what loading throws.
    public func model(at url: URL, configuration: LocalModel.Configuration = .init()) async throws -> LocalModel {
        try await model(at: url, name: url.deletingPathExtension().lastPathComponent, configuration: configuration)
    }

    /// Every model it holds, the most recently used first.
    public var entries: [Entry] {
        resident.values.map(\.entry).sorted { $0.lastUsed > $1.lastUsed }
    }

    /// Stops holding `model` (every configuration it is held under).
    public func unload(_ model: LocalModel) {
        for (key, held) in resident where held.model === model { remove(key) }
    }

    /// Stops holding every model.
    public func unloadAll() {
        for key in resident.keys { remove(key) }
    }

    /// Calls `observer` with each model this cache stops holding (a server drops what it keeps
    /// for the model, so that the memory can go).
    public func onUnload(_ observer: @escaping @Sendable (LocalModel) -> Void) {
        observers.append(observer)
    }

    private func model(at url: URL, name: String, configuration: LocalModel.Configuration) async throws -> LocalModel {
        let key = Key(path: url.standardizedFileURL.resolvingSymlinksInPath().path, configuration: configuration)
        if var held = resident[key] {
            held.entry.lastUsed = Date()
            held.entry.expiresAt = policy.keepAlive.map { Date().addingTimeInterval($0.seconds) }
            resident[key] = held
            return held.model
        }
        if let pending = loading[key] { return try await pending.value }
        let task = Task { try await self.load(url: url, name: name, key: key) }
        loading[key] = task
        defer { loading[key] = nil }
        return try await task.value
    }

    private func load(url: URL, name: String, key: Key) async throws -> LocalModel {
        // What loading will hold: without a fit, the configuration's context (or the default
        // cap) and every layer a GPU can take.
        var planning = key.configuration
        if planning.memoryFit == nil {
            let training = try GGUFFile(modelAt: url).trainingContextLength ?? LocalModel.Configuration.defaultContextLength
            planning.context.length = planning.context.length ?? min(training, LocalModel.Configuration.defaultContextLength)
            planning.weights.gpuLayers = planning.weights.gpuLayers ?? 100_000
            planning.memoryFit = .init(margin: 0, reusesPlans: false)      // a measurement, not a plan to keep
        }
        let plan = try await LocalModel.memoryPlan(for: url, configuration: planning)
        let required = plan.limitingDevices.map(\.used).reduce(0, +)
        try await makeRoom(for: required, name: name, plan: plan)
        let model = try await LocalModel.load(from: url, configuration: key.configuration)
        let memory = model.memoryPlan.map { $0.limitingDevices.map(\.used).reduce(0, +) } ?? required
        let now = Date()
        resident[key] = Resident(entry: Entry(name: name, url: url, model: model, configuration: key.configuration, memoryBytes: memory,
                                              loadedAt: now, lastUsed: now,
                                              expiresAt: policy.keepAlive.map { now.addingTimeInterval($0.seconds) }),
                                 model: model)
        scheduleSweep()
        return model
    }

    /// Unloads idle models, least recently used first, until `required` more bytes fit.
    private func makeRoom(for required: Int64, name: String, plan: LocalModel.MemoryPlan) async throws {
        var available = budgetLeft(plan: plan)
        guard required > available else { return }
        for (key, held) in resident.sorted(by: { $0.value.entry.lastUsed < $1.value.entry.lastUsed }) {
            guard await held.model.isIdle else { continue }
            remove(key)
            available = policy.memoryBudget == nil ? available + held.entry.memoryBytes : budgetLeft(plan: plan)
            if required <= available { return }
        }
        throw Error.insufficientMemory(name: name, required: required, available: available)
    }

    /// What the budget leaves: the budget less what resident models hold, or (without a budget)
    /// what the devices limiting `plan` have free now.
    private func budgetLeft(plan: LocalModel.MemoryPlan) -> Int64 {
        if let budget = policy.memoryBudget {
            return budget - resident.values.map(\.entry.memoryBytes).reduce(0, +)
        }
        return plan.limitingDevices.map { $0.availableMemory - plan.margin }.reduce(0, +)
    }

    private func remove(_ key: Key) {
        guard let held = resident.removeValue(forKey: key) else { return }
        for observer in observers { observer(held.model) }
    }

    /// Unloads, once their time is up, the models nobody asked for that are idle; runs again at
    /// the next expiry.
    private func scheduleSweep() {
        guard policy.keepAlive != nil, sweeper == nil else { return }
        sweeper = Task { [weak self] in
            while let self, let next = await self.sweep() {
                try? await Task.sleep(for: .seconds(max(0.05, next.timeIntervalSinceNow)))
            }
        }
    }

    /// Unloads expired idle models; returns when to look again (nil: nothing left to expire).
    private func sweep() async -> Date? {
        let now = Date()
        for (key, held) in resident {
            guard let expiry = held.entry.expiresAt, expiry <= now else { continue }
            if await held.model.isIdle {
                remove(key)
            } else if var busy = resident[key] {
                busy.entry.expiresAt = now.addingTimeInterval(policy.keepAlive?.seconds ?? 0)
                resident[key] = busy
            }
        }
        guard let next = resident.values.compactMap(\.entry.expiresAt).min() else {
            sweeper = nil
            return nil
        }
        return next
    }
}
