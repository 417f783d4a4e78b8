import Foundation

/// The memory plans kept between loads (``LocalModel/Configuration/MemoryFit/reusesPlans``): one
/// JSON file, keyed by the model (its header's fingerprint), the devices and the settings that
/// shape a plan. A kept plan is used again while every device it is limited by has at least
/// what the plan needs (its margin included) and at most a quarter more than it had when the
/// plan was made (with more, a longer context or more layers may fit: it is measured again,
/// unless the plan already has the training length and every layer). It holds the last 64 plans.
///
/// A missing, unreadable, oversized or foreign file counts as empty and is replaced on the next
/// store. Stores take an exclusive lock on a file beside it, write a temporary file and rename
/// it, so concurrent loads never leave it half-written. Failing to store costs only the reuse.
struct MemoryPlanCache {
    let url: URL

    static let capacity = 64
    /// A file larger than this is not read.
    static let maximumFileSize = 4 << 20
    /// How much more memory than a plan was made with still reuses it.
    static let growth = 1.25

    private struct Entry: Codable {
        var key: String
        var plan: LocalModel.MemoryPlan
    }

    private struct File: Codable {
        var version = 1
        var entries: [Entry] = []
    }

    /// `fit-plans.json` in the data folder.
    static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        DataLocation.folder(environment: environment).appending(path: "fit-plans.json")
    }

    /// What identifies a plan: the model, the devices (names and total memory), and the settings.
    static func key(file: GGUFFile, configuration: LocalModel.Configuration,
                    fit: LocalModel.Configuration.MemoryFit) throws -> String {
        let fingerprint = try ModelFingerprint(file)
        let hardware = ComputeDevice.all.map { "\($0.name):\($0.totalMemory)" }.joined(separator: ",")
        let settings: [String] = [
            "\(configuration.serving.parallelSequences)", configuration.cacheLayoutInEffect.rawValue,
            configuration.context.length.map(String.init) ?? "fit", configuration.weights.gpuLayers.map(String.init) ?? "fit",
            "\(configuration.context.batchSize)/\(configuration.context.microBatchSize)", "\(configuration.context.usesFullSlidingWindowCache)",
            "\(configuration.repacksWeightsInEffect)", "\(configuration.serving.speculation.source == .multiTokenPrediction)",
            "\(fit.margin)", "\(fit.minimumContextLength)",
            "\(configuration.context.keyCacheType.rawValue)/\(configuration.context.valueCacheType.rawValue)/\(configuration.context.flashAttention.rawValue)",
        ]
        return "\(fingerprint.headerDigest)/\(fingerprint.fileSize) \(hardware) \(settings.joined(separator: " "))"
    }

    /// The plan kept for `key`, if it still holds with `available` bytes on each device (by
    /// name; the host as `Host`).
    func plan(for key: String, available: [String: Int64]) -> LocalModel.MemoryPlan? {
        guard let plan = read().entries.last(where: { $0.key == key })?.plan else { return nil }
        let complete = plan.contextLength >= plan.trainingContextLength && plan.gpuLayers >= plan.layerCount
        for device in plan.limitingDevices {
            guard let now = available[device.name], now >= device.used + plan.margin else { return nil }
            if !complete, Double(now) > Double(device.availableMemory) * Self.growth { return nil }
        }
        return plan
    }

    /// The memory each device has for a plan now (by name; the host as `Host`): what it reports
    /// free, at most `limit`.
    static func availableMemory(limit: Int64?) -> [String: Int64] {
        var result = ["Host": min(SystemMemory.availableBytes, limit ?? .max)]
        for device in ComputeDevice.all where device.kind != .cpu {
            result[device.name] = min(device.freeMemory, limit ?? .max)
        }
        return result
    }

    /// Keeps `plan` for `key`, replacing what was kept for it.
    func store(_ plan: LocalModel.MemoryPlan, for key: String) {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lock = open(url.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { return }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { return }
        var contents = read()
        contents.entries.removeAll { $0.key == key }
        var kept = plan
        kept.isReused = false
        contents.entries.append(Entry(key: key, plan: kept))
        contents.entries = Array(contents.entries.suffix(Self.capacity))
        guard let data = try? JSONEncoder().encode(contents) else { return }
        let temporary = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).\(getpid()).tmp")
        do {
            try data.write(to: temporary)
            if rename(temporary.path, url.path) != 0 { try? FileManager.default.removeItem(at: temporary) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    private func read() -> File {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              (attributes[.size] as? Int ?? .max) <= Self.maximumFileSize,
              let data = try? Data(contentsOf: url),
              let file = try? JSONDecoder().decode(File.self, from: data), file.version == 1
        else { return File() }
        return file
    }
}
