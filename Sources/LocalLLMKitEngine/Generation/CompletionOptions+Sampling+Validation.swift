extension CompletionOptions.Sampling {
    /// Checks typical-p, the repetition guard, top-choice exclusion and Mirostat, naming the
    /// first value that cannot work through `fail`.
    func validateExtensions(_ fail: (String, String) -> LocalModel.Error) throws {
        func unit(_ name: String, _ value: Double, open: Bool = false) throws {
            guard value.isFinite, open ? value > 0 : value >= 0, value <= 1 else {
                throw fail(name, "\(value) is not in \(open ? "(0" : "[0"), 1]")
            }
        }
        if let typicalP { try unit("typicalP", typicalP, open: true) }
        if let exclusion = topChoiceExclusion {
            try unit("topChoiceExclusion.probability", exclusion.probability)
            try unit("topChoiceExclusion.threshold", exclusion.threshold)
        }
        if let guardSetting = repetitionGuard {
            let name = "repetitionGuard"
            guard guardSetting.multiplier.isFinite, guardSetting.multiplier >= 0, Float(guardSetting.multiplier).isFinite else {
                throw fail("\(name).multiplier", "\(guardSetting.multiplier) is not a finite number ≥ 0")
            }
            guard guardSetting.base.isFinite, guardSetting.base >= 1, Float(guardSetting.base).isFinite else {
                throw fail("\(name).base", "\(guardSetting.base) is not a finite number ≥ 1")
            }
            guard (0...Int(Int32.max)).contains(guardSetting.allowedLength) else {
                throw fail("\(name).allowedLength", "\(guardSetting.allowedLength) is not in 0…\(Int32.max)")
            }
            guard (-1...Int(Int32.max)).contains(guardSetting.window) else {
                throw fail("\(name).window", "\(guardSetting.window) is not in -1…\(Int32.max)")
            }
            let breakers = guardSetting.sequenceBreakers
            guard breakers.count <= RepetitionGuard.maximumSequenceBreakers else {
                throw fail("\(name).sequenceBreakers", "\(breakers.count) breakers; at most \(RepetitionGuard.maximumSequenceBreakers) are taken")
            }
            if let breaker = breakers.first(where: { $0.isEmpty || $0.utf8.count > RepetitionGuard.maximumSequenceBreakerBytes || $0.utf8.contains(0) }) {
                throw fail("\(name).sequenceBreakers", "a breaker of \(breaker.utf8.count) bytes; each must hold 1 to "
                           + "\(RepetitionGuard.maximumSequenceBreakerBytes) bytes and no NUL")
            }
        }
        if let mirostat {
            guard mirostat.tau.isFinite, mirostat.tau >= 0, Float(mirostat.tau).isFinite else {
                throw fail("mirostat.tau", "\(mirostat.tau) is not a finite number ≥ 0")
            }
            guard mirostat.eta.isFinite, mirostat.eta > 0, Float(mirostat.eta).isFinite else {
                throw fail("mirostat.eta", "\(mirostat.eta) is not a finite number > 0")
            }
        }
    }
}
