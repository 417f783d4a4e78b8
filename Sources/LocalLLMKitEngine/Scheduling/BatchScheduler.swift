import Foundation

/// Continuous batching over one llama.cpp context with several sequences.
///
/// Each step builds one `llama_batch`: first the pending token of every generating sequence
/// (with speculation, followed by its draft: see `BatchScheduler+Speculation.swift`), then
/// prompt chunks of requests that are still evaluating their prompt, in the order they
/// started, up to the context's batch size. Generation therefore advances at least every other
/// step, and prompts take whatever room is left; with a KV stream per sequence, a step in which
/// every prompt ends takes only prompts (see
/// ``leavesGenerationForNextStep(streams:generating:promptsLeft:batchSize:leftLastStep:)``), and
/// a generation step gives idle sequences between generating ones a filler row each
/// (``GapFillerRule``). After the decode, every sequence whose logits were computed
/// samples with its own sampler. Requests beyond the number of sequences wait in a FIFO queue
/// of bounded length.
///
/// Where `llama_decode` returns before the device has computed (a GPU), the text work of the
/// tokens a step decodes (detokenizing, stop sequences, streaming) runs once that step is queued,
/// while the device computes it, instead of before it: the device then waits only for the
/// sampling. A request that a stop sequence ends there has had its last token decoded once more
/// than needed; that token stays in its sequence's cache, where it belongs to the text.
///
/// Runs only on the model's ``EngineExecutor``: every step is one job on it, so that other
/// work of the model runs between steps.
package final class BatchScheduler: @unchecked Sendable {
    package typealias Completion = (Result<GenerationOutcome, any Error>) -> Void

    struct Waiting {
        /// Tells this request apart while its prompt-cache lookup reads the disk.
        var id: UInt64
        var request: GenerationRequest
        var submitted: ContinuousClock.Instant
        var completion: Completion
        /// The request's adapter scales, or the model's when it was submitted.
        var adapterScales: [Float]
        /// How far its lookup in the prompt cache on disk has come.
        var cacheLookup = PromptCacheLookup.notStarted
    }

    package let context: InferenceContext
    let tokenizer: Tokenizer
    let executor: EngineExecutor
    private let queueLimit: Int
    /// Whether requests handle their tokens' text once the next step is queued (see above).
    private let defersText: Bool
    /// Drafts tokens for generating sequences, with speculation.
    let speculator: Speculator?
    /// Chooses how much of each draft a step checks, when the speculation adapts its draft length.
    var draftPlanner: DraftPlanner?
    /// Prompt-lookup drafts that a step checked in part or not at all, by sequence: compared
    /// with the tokens generated instead, they tell the planner how far such drafts run right,
    /// for free.
    var shadowDrafts: [Int32: ShadowDraft] = [:]
    /// Chooses how much of each grammar draft a step checks (see ``grammarDrafts(for:room:)``).
    var grammarPlanner: DraftPlanner?
    /// Grammar drafts that a step checked in part or not at all, by sequence (as ``shadowDrafts``).
    var grammarShadows: [Int32: ShadowDraft] = [:]
    /// Whether requests with an output grammar draft from it (see ``grammarDrafts(for:room:)``).
    package var draftsFromGrammar = true
    /// Whether generation steps give idle sequences between generating ones filler rows (see
    /// ``GapFillerRule``), measured on this device.
    var gapChoice = GapFillerChoice()
    var slots: [SequenceSlot]
    private var completions: [Int32: Completion] = [:]
    var waiting: [Waiting] = []
    private var waitingCounter: UInt64 = 0
    /// Slots in the order their requests started: prompt chunks are taken in this order.
    private var startOrder: [Int] = []
    private var isStepScheduled = false
    private var useCounter: UInt64 = 0
    /// What ``measureSteps()`` has gathered of generation steps, while it measures.
    private var stepTimes: StepTimes?
    /// What it has gathered of steps with prompt tokens.
    private var promptStepTimes = StepTimes()
    /// When the last step ended, while measuring.
    private var lastStepEnd: ContinuousClock.Instant?
    /// When the last generation step ended, while measuring.
    private var lastGenerationStepEnd: ContinuousClock.Instant?
    /// Requests of the model's other work (embeddings) waiting their turn: they count against the
    /// same queue bound as generation requests.
    package var otherQueued = 0 {
        didSet { publishLoad() }
    }
    /// Where the scheduler publishes its load after each change (see ``LoadGauges``).
    package var gauges: LoadGauges?
    /// With speculation on the CPU: the most rows a verification batch may have for a greedy
    /// request generating alone to draw exactly what plain decoding draws
    /// (``InferenceContext/exactBatchRows(probing:sequence:upTo:)``); nil: no bound.
    package var exactVerificationRows: Int?
    /// On the CPU, without speculation: the tokens that measure ``exactVerificationRows`` on the
    /// first request with an output grammar (the measure needs a sequence whose cache is empty).
    /// Until then a greedy request generating alone drafts nothing from its grammar.
    package var exactRowsProbe: [Int32]?
    /// How long the last step that decoded only generated tokens took: what other work between
    /// steps is sized against.
    package private(set) var lastGenerationStepSeconds: Double?
    /// The adapter scales of requests that name none (``LocalModel/adapterScales``).
    package var defaultAdapterScales: [Float]
    /// Evaluated prompts kept on disk (see ``LocalModel/PromptCache``); nil: none.
    var promptCache: PromptCacheStore?
    /// Steps decoded so far, for ``SequenceSlot/lastStep``.
    private var stepCounter: UInt64 = 0
    /// Whether the last step left the generating sequences' rows to this one (see
    /// ``leavesGenerationForNextStep(streams:generating:promptsLeft:batchSize:leftLastStep:)``).
    private var leftGenerationForNextStep = false
    /// The adapter scales decoding now, and for how many steps (see ``adapterTurn()``).
    var turn: (scales: [Float]?, steps: Int) = (nil, 0)

    /// A scheduler over `context`, whose sequences it owns from now on.
    package init(context: InferenceContext, tokenizer: Tokenizer, executor: EngineExecutor, queueLimit: Int,
                 defersText: Bool = false, speculator: Speculator? = nil, plansGrammarDrafts: Bool = true) {
        self.context = context
        self.tokenizer = tokenizer
        self.executor = executor
        self.queueLimit = queueLimit
        self.defersText = defersText && speculator == nil
        self.speculator = speculator
        if let speculator, speculator.adaptsDraftLength {
            let rows = min(context.batchSize, context.sequenceCount * (speculator.maximumDraft + 1))
            draftPlanner = DraftPlanner(sequenceCount: context.sequenceCount, maximumDraft: speculator.maximumDraft,
                                        maximumRows: rows)
        }
        grammarPlanner = !plansGrammarDrafts ? nil : DraftPlanner(sequenceCount: context.sequenceCount, maximumDraft: Self.maximumGrammarDraft,
                                      maximumRows: min(context.batchSize, context.sequenceCount * (Self.maximumGrammarDraft + 1)),
                                      doubt: Self.grammarDraftDoubt)
        self.defaultAdapterScales = context.adapterScales
        self.slots = (0..<context.sequenceCount).map { SequenceSlot(id: Int32($0), adapterScales: context.adapterScales) }
    }

    /// Requests generating now.
    package var activeCount: Int { slots.count { !$0.isIdle } }
    /// Requests waiting for a sequence.
    package var waitingCount: Int { waiting.count }
    /// Requests waiting beyond the idle sequences, which they take first: the queue.
    package var queuedCount: Int { max(waiting.count - slots.count(where: \.isIdle), 0) }

    /// Queues `request`; `completion` is called on the executor once it has ended.
    /// - Throws: the request's validation errors (see ``ActiveGeneration/validate(_:tokenizer:)``),
    ///   or ``LocalModel/Error/busy(queuedRequests:)`` when every sequence is busy and the queue is full.
    package func submit(_ request: GenerationRequest, completion: @escaping Completion) throws {
        try ActiveGeneration.validate(request, tokenizer: tokenizer)
        let scales = request.plan.options.adapterScales ?? defaultAdapterScales
        guard scales.count == context.model.adapters.count else {
            throw LocalModel.Error.invalidOption(
                name: "adapterScales", reason: "it has \(scales.count) scales, but the model has \(context.model.adapters.count) adapters")
        }
        if !request.plan.media.isEmpty && speculator != nil {
            throw LocalModel.Error.speculationUnsupported(reason: "a prompt with images or audio cannot be drafted for: load the model without speculation to send media")
        }
        // Requests already waiting take the idle sequences first; the rest is the queue.
        let queued = queuedCount + otherQueued
        if queued >= queueLimit { throw LocalModel.Error.busy(queuedRequests: queued) }
        waitingCounter += 1
        waiting.append(Waiting(id: waitingCounter, request: request, submitted: ContinuousClock.now, completion: completion,
                               adapterScales: scales))
        publishLoad()
        scheduleStep()
    }

    func scheduleStep() {
        guard !isStepScheduled else { return }
        isStepScheduled = true
        executor.schedule { [self] in step() }
    }

    /// Publishes the requests waiting (with ``otherQueued``) and the sequences busy.
    private func publishLoad() {
        let waitingCount = waiting.count + otherQueued, busy = activeCount
        gauges?.update { values in
            values.waiting = waitingCount
            values.busy = busy
        }
    }

    /// Starts measuring where the time of generation steps goes (see ``StepTimes``), from zero.
    package func measureSteps() {
        stepTimes = StepTimes()
        promptStepTimes = StepTimes()
        lastGenerationStepEnd = nil
        lastStepEnd = nil
    }

    /// Stops measuring; returns what was measured since ``measureSteps()`` (nil if it was not called).
    package func stopMeasuringSteps() -> (generation: StepTimes, prompt: StepTimes)? {
        defer { stepTimes = nil }
        return stepTimes.map { ($0, promptStepTimes) }
    }

    /// One decode step for every request that has work.
    private func step() {
        isStepScheduled = false
        var laps = stepTimes.map { _ in StepLaps() }
        dropCancelled()
        admitWaiting()
        if defersText && startOrder.contains(where: { slots[$0].generation?.hasPromptLeft ?? false }) {
            // A step with prompt chunks can take long to queue (several micro-batches): the text
            // of the tokens sampled last goes out first, as it would without deferring.
            handleDeferredText(in: slots.indices)
            for index in slots.indices where slots[index].generation?.outcome != nil { release(index) }
        }
        var entries: [InferenceContext.Entry] = []
        var flags: [CancellationFlag] = []
        var promptTaken: [(slot: Int, count: Int)] = []
        let turn = adapterTurn()
        var generating = slots.indices.filter { slots[$0].generation?.pendingToken != nil && turn.includes($0) }
        let promptsLeft = startOrder.filter { turn.includes($0) && slots[$0].generation?.hasPromptLeft == true }
            .map { slots[$0].generation?.plainPromptTokensLeft }
        leftGenerationForNextStep = Self.leavesGenerationForNextStep(
            streams: context.streamCount, generating: generating.count, promptsLeft: promptsLeft,
            batchSize: context.batchSize, leftLastStep: leftGenerationForNextStep)
        if leftGenerationForNextStep { generating = [] }
        let drafts = draft(for: generating)
        var speculated: [Int: Speculated] = [:]
        for index in generating {
            guard let generation = slots[index].generation, let token = generation.pendingToken else { continue }
            let position = generation.position
            if let draft = drafts[index] { speculated[index] = Speculated(draft: draft, batchIndex: entries.count) }
            entries.append(.init(token: token, position: position, sequence: slots[index].id, wantsLogits: true))
            for (offset, token) in (drafts[index]?.tokens ?? []).enumerated() {
                entries.append(.init(token: token, position: position + 1 + offset, sequence: slots[index].id, wantsLogits: true))
            }
            flags.append(generation.request.cancellation)
        }
        var medium: (slot: Int, span: PromptMediaSpan)?
        for index in startOrder where entries.count < context.batchSize && turn.includes(index) {
            guard let generation = slots[index].generation, generation.hasPromptLeft else { continue }
            if let span = generation.mediumAtNextPrompt {
                // A medium is decoded in a batch of its own (see decodeMedium); one per step.
                if medium == nil { medium = (index, span) }
                continue
            }
            let start = generation.nextPromptIndex
            let chunk = generation.takePrompt(upTo: context.batchSize - entries.count)
            let isLast = generation.nextPromptIndex == generation.promptCount
            for (offset, token) in chunk.enumerated() {
                entries.append(.init(token: token, position: start + offset, sequence: slots[index].id,
                                     wantsLogits: isLast && offset == chunk.count - 1))
            }
            flags.append(generation.request.cancellation)
            promptTaken.append((index, chunk.count))
        }
        // Generating rows come in slot order, which is id order: only a prompt chunk can be out of
        // place, so steps without one (the token loop) skip the check.
        if context.streamCount > 1, !promptTaken.isEmpty, let ordered = Self.orderedBySequence(entries) {
            entries = ordered.entries
            for index in speculated.keys { if let start = ordered.starts[slots[index].id] { speculated[index]?.batchIndex = start } }
        }
        laps?.lap(\.building)
        if let scales = turn.scales {
            // Only a model with adapters takes turns, so only it keeps count (not the token loop of others).
            context.useAdapterScales(scales)
            stepCounter += 1
            for index in Set(entries.map { Int($0.sequence) }).union(medium.map { [$0.slot] } ?? []) {
                slots[index].lastStep = stepCounter
            }
        }
        if let medium { decodeMedium(medium.span, of: medium.slot) }
        let (fillers, gapStep) = promptTaken.isEmpty && medium == nil && speculated.isEmpty && turn.scales == nil
            ? chooseGapFillers(for: entries) : ([], nil)
        if !entries.isEmpty {
            let start = ContinuousClock.now
            let decoded = decode(fillers.isEmpty ? entries : GapFillerRule.merging(fillers, into: entries),
                                 fillers: fillers, flags: flags, promptTaken: promptTaken, generating: generating,
                                 speculated: speculated, laps: &laps)
            if decoded && promptTaken.isEmpty {
                let seconds = (.now - start).seconds
                lastGenerationStepSeconds = seconds
                if let gapStep { gapChoice.record(shape: gapStep.shape, filled: gapStep.filled, seconds: seconds) }
                draftPlanner?.recordStep(rows: entries.count + fillers.count, seconds: seconds)
                grammarPlanner?.recordStep(rows: entries.count + fillers.count, seconds: seconds)
            }
        }
        // A request whose cache entry is being read is stepped again when the read ends.
        if (!waiting.isEmpty && !waiting[0].cacheLookup.isReading) || slots.contains(where: { !$0.isIdle }) { scheduleStep() }
        publishLoad()
        if let laps {
            record(laps, tokens: entries.count, fillers: fillers.count,
                   generationOnly: promptTaken.isEmpty && medium == nil && !entries.isEmpty,
                   prompt: !promptTaken.isEmpty, generating: !generating.isEmpty)
        }
    }

    /// Whether a step takes only prompt chunks, leaving the generating sequences' rows to the
    /// next step: where each sequence has a KV stream of its own (`streams` > 1), the prompts of
    /// this step (`promptsLeft`, each one's plain tokens left, nil for one with a medium ahead) all
    /// end in it, and the last step did not already leave them.
    ///
    /// With a stream per sequence, llama.cpp cuts a batch into micro-batches of equal rows per
    /// sequence (see ``orderedBySequence(_:)``), so generating rows (one per sequence) beside
    /// prompt chunks form a micro-batch of their own, a pass over the weights that a step of
    /// their own would cost just the same: leaving them costs the generating sequences nothing
    /// (their token comes after the same passes) and gives the prompts their first token one
    /// pass sooner. Taking them would also cut the last prompt short, and its rest costs
    /// another step. Never twice in a row, so that arriving prompts cannot starve generation.
    static func leavesGenerationForNextStep(streams: Int, generating: Int, promptsLeft: [Int?], batchSize: Int,
                                            leftLastStep: Bool) -> Bool {
        guard streams > 1, generating > 0, !leftLastStep, !promptsLeft.isEmpty else { return false }
        var rows = 0
        for left in promptsLeft {
            guard let left else { return false }
            rows += left
        }
        return rows <= batchSize
    }

    /// A step's rows with each sequence's rows (its pending token and draft, or its prompt chunk,
    /// one run either way) in the order of the sequences' ids, and where each sequence's rows
    /// now start; nil when they are in that order already.
    ///
    /// With a KV stream per sequence, llama.cpp cuts a batch into micro-batches that take the
    /// same number of rows from each of a run of sequences whose ids follow one another in the
    /// batch's order (`split_equal`, sequential). Generating rows first and a prompt after them
    /// break that run wherever the prompt's sequence sits between generating ones, and each
    /// piece costs a pass over the weights; in id order one micro-batch takes every generating
    /// row and the prompt's first.
    static func orderedBySequence(_ entries: [InferenceContext.Entry]) -> (entries: [InferenceContext.Entry], starts: [Int32: Int])? {
        var runs: [Range<Int>] = []
        var start = 0
        for index in entries.indices.dropFirst() where entries[index].sequence != entries[index - 1].sequence {
            runs.append(start..<index)
            start = index
        }
        if !entries.isEmpty { runs.append(start..<entries.count) }
        guard zip(runs, runs.dropFirst()).contains(where: { entries[$0.lowerBound].sequence > entries[$1.lowerBound].sequence })
        else { return nil }
        var ordered: [InferenceContext.Entry] = []
        var starts: [Int32: Int] = [:]
        ordered.reserveCapacity(entries.count)
        for run in runs.sorted(by: { entries[$0.lowerBound].sequence < entries[$1.lowerBound].sequence }) {
            starts[entries[run.lowerBound].sequence] = ordered.count
            ordered.append(contentsOf: entries[run])
        }
        return (ordered, starts)
    }

    /// Adds one step's laps to ``stepTimes`` when it decoded only generated tokens, or to
    /// ``promptStepTimes`` when it decoded prompt tokens (`prompt`), beside generating rows or not.
    private func record(_ laps: StepLaps, tokens: Int, fillers: Int, generationOnly: Bool, prompt: Bool, generating: Bool) {
        var laps = laps
        laps.lap(\.finishing)
        defer { lastStepEnd = laps.last }
        if prompt {
            promptStepTimes.add(laps.times, tokens: tokens, between: lastStepEnd.map { laps.start - $0 }, withGeneration: generating)
        }
        guard generationOnly else {
            lastGenerationStepEnd = nil
            return
        }
        stepTimes?.add(laps.times, tokens: tokens, between: lastGenerationStepEnd.map { laps.start - $0 }, fillers: fillers)
        lastGenerationStepEnd = laps.last
    }

    /// Decodes one step's batch and samples; false when the decode failed (the batch counts for
    /// nothing). Its `fillers` (see ``GapFillerRule``) are among `entries`, and their positions
    /// are removed again at once.
    @discardableResult
    private func decode(_ entries: [InferenceContext.Entry], fillers: [InferenceContext.Entry], flags: [CancellationFlag],
                        promptTaken: [(slot: Int, count: Int)], generating: [Int], speculated: [Int: Speculated],
                        laps: inout StepLaps?) -> Bool {
        let code = context.decode(entries, cancellations: flags)
        for filler in fillers { context.removePositions(of: filler.sequence, from: filler.position) }
        let fillerSequences = Set(fillers.map { Int($0.sequence) })
        laps?.lap(\.decoding)
        if defersText {
            // The device computes the step: meanwhile, the text of the tokens it decodes.
            handleDeferredText(in: generating)
            laps?.lap(\.text)
        }
        if laps != nil && code == 0 {
            context.synchronize()
            laps?.lap(\.waiting)
        }
        guard code == 0 else {
            // Nothing of this batch counts: each sequence goes back to what it held before.
            for (index, count) in promptTaken { slots[index].generation?.returnPrompt(count) }
            let decodedSequences = Set(entries.map { Int($0.sequence) }).subtracting(fillerSequences)
            for index in decodedSequences {
                context.removePositions(of: slots[index].id, from: slots[index].tokens.count)
                release(index)          // a request its text just ended is complete all the same
            }
            if code != 2 {              // 2: aborted because every request in it was cancelled
                let error = context.error(for: code)
                for index in decodedSequences { fail(index, error) }
            }
            return false
        }
        speculator?.didDecode(entries)
        var draws: [SamplingDraw] = []
        for (batchIndex, entry) in entries.enumerated() {
            let index = Int(entry.sequence)
            guard speculated[index] == nil else { continue }        // verified below
            guard !fillerSequences.contains(index) else { continue }
            slots[index].tokens.append(entry.token)
            guard entry.wantsLogits, let generation = slots[index].generation else { continue }
            guard generation.outcome == nil else {
                release(index)          // its text ended it: a stop sequence, or balanced JSON
                continue
            }
            draws.append(SamplingDraw(slot: index, generation: generation, batchIndex: Int32(batchIndex),
                                      logits: generation.samplesFromLogits ? context.logits(at: Int32(batchIndex)) : nil))
        }
        SamplingDraw.run(draws, in: context, vocabularySize: tokenizer.vocabularySize)
        for draw in draws {
            if let error = draw.error {
                fail(draw.slot, error)
            } else if draw.generation.outcome != nil {
                release(draw.slot)
            }
        }
        for (index, speculation) in speculated.sorted(by: { $0.key < $1.key }) {
            verify(speculation, of: index, decoded: entries)
        }
        laps?.lap(\.sampling)
        return true
    }

    /// Decodes the next part of `span`, the medium that slot `index`'s prompt has reached: its
    /// embeddings (encoded now, or from the projector's cache) in one `llama_decode`, as
    /// llama.cpp's mtmd helper does: up to a batch of them, or all at once where they attend to
    /// each other both ways. A failure fails that request only.
    private func decodeMedium(_ span: PromptMediaSpan, of index: Int) {
        guard let generation = slots[index].generation else { return }
        let offset = generation.nextPromptIndex - span.start
        let count = span.nonCausal ? span.count : min(span.count - offset, context.batchSize)
        guard !span.nonCausal || (offset == 0 && span.count <= context.batchSize) else {
            fail(index, LocalModel.Error.invalidOption(
                name: "batchSize", reason: "an image of \(span.count) embeddings must be decoded at once, but a batch holds \(context.batchSize)"))
            return
        }
        let projector = span.chunks.projector
        let code: Int32
        let encoding: Duration?
        do {
            let embeddings: [Float]
            (embeddings, encoding) = try projector.embeddings(for: span)
            code = embeddings.withUnsafeBufferPointer { all in
                let rows = UnsafeBufferPointer(rebasing: all[(offset * projector.width)..<((offset + count) * projector.width)])
                return context.decodeEmbeddings(rows, width: projector.width, position: generation.nextPromptIndex,
                                                sequence: slots[index].id, nonCausal: span.nonCausal,
                                                cancellation: generation.request.cancellation)
            }
        } catch {
            fail(index, error)
            return
        }
        guard code == 0 else {
            context.removePositions(of: slots[index].id, from: slots[index].tokens.count)
            if code == 2 {
                generation.finish(.cancelled)
                release(index)
            } else {
                fail(index, context.error(for: code))
            }
            return
        }
        let standIns = generation.request.plan.promptTokens[generation.nextPromptIndex..<generation.nextPromptIndex + count]
        slots[index].tokens.append(contentsOf: standIns)
        generation.advanceThroughMedium(count, encoding: encoding)
    }

    /// Handles the text of the tokens that the requests on `indices` sampled last. Before a
    /// step is built, a request that its text ends leaves at once (its token is not decoded).
    private func handleDeferredText<Indices: Sequence<Int>>(in indices: Indices) {
        for index in indices {
            do {
                try slots[index].generation?.handleDeferredText()
            } catch {
                fail(index, error)
            }
        }
    }

    /// Ends cancelled requests, running or waiting: their sequences are free at once.
    private func dropCancelled() {
        for index in slots.indices {
            guard let generation = slots[index].generation, generation.request.cancellation.isRaised else { continue }
            generation.finish(.cancelled)
            release(index)
        }
        let cancelled = waiting.filter { $0.request.cancellation.isRaised }
        waiting.removeAll { $0.request.cancellation.isRaised }
        for request in cancelled {
            var statistics = GenerationStatistics()
            statistics.promptTokens = request.request.plan.promptTokens.count
            request.completion(.success(GenerationOutcome(text: "", tokens: [], stopReason: .cancelled, stopSequence: nil,
                                                          seed: request.request.plan.options.sampling.seed ?? 0,
                                                          statistics: statistics)))
        }
    }

    /// Starts waiting requests, first come first served, while sequences are idle.
    private func admitWaiting() {
        while !waiting.isEmpty, loadCachedPrompt() {
            let next = waiting[0]
            // Cache computed with other adapter scales is not this request's.
            guard var placement = SlotPlacement.choose(
                for: next.request.plan.promptTokens, in: slots, reusingCache: next.request.plan.reusesCache,
                usable: { [slots] in slots[$0].adapterScales == next.adapterScales && self.isWhole($0, $1) })
            else { return }
            waiting.removeFirst()
            // A medium whose embeddings attend both ways is decoded whole, or not at all.
            if let cut = next.request.plan.media.first(where: { $0.nonCausal && $0.range.dropFirst().contains(placement.cachedTokens) }) {
                placement.cachedTokens = cut.start
            }
            let probesExactRows = exactVerificationRows == nil && exactRowsProbe != nil
                && next.request.plan.options.speculates && next.request.plan.constraint.isOutputGrammar
            if probesExactRows { placement.cachedTokens = 0 }       // once per model: its cache is the probe's
            let cached = prepare(placement)
            if probesExactRows, let probe = exactRowsProbe {
                exactVerificationRows = context.exactBatchRows(probing: probe, sequence: slots[placement.slot].id,
                                                               upTo: Self.maximumGrammarDraft + 1)
                exactRowsProbe = nil
            }
            slots[placement.slot].adapterScales = next.adapterScales
            speculator?.begin(slots[placement.slot].id, prompt: next.request.plan.promptTokens)
            draftPlanner?.reset(Int(slots[placement.slot].id))
            shadowDrafts[slots[placement.slot].id] = nil
            grammarPlanner?.reset(Int(slots[placement.slot].id))
            grammarShadows[slots[placement.slot].id] = nil
            do {
                let generation = try ActiveGeneration(request: next.request, submitted: next.submitted,
                                                      sequence: slots[placement.slot].id, cachedTokens: cached,
                                                      model: context.model, tokenizer: tokenizer, defersText: defersText)
                useCounter += 1
                slots[placement.slot].generation = generation
                slots[placement.slot].lastUsed = useCounter
                completions[slots[placement.slot].id] = next.completion
                startOrder.append(placement.slot)
            } catch {
                next.completion(.failure(error))
            }
        }
    }

    /// Makes the placement's slot hold exactly the reused prefix; returns its length.
    private func prepare(_ placement: SlotPlacement) -> Int {
        let target = placement.slot
        var count = placement.cachedTokens
        if let source = placement.source {
            context.removePositions(of: slots[target].id, from: 0)
            if count > 0, !context.sharePrefix(of: slots[source].id, with: slots[target].id, count: count) { count = 0 }
            slots[target].tokens = Array(slots[source].tokens.prefix(count))
        } else if !context.removePositions(of: slots[target].id, from: count) {
            context.removePositions(of: slots[target].id, from: 0)
            count = 0
        }
        slots[target].tokens.removeSubrange(min(count, slots[target].tokens.count)...)
        return count
    }

    func fail(_ index: Int, _ error: any Error) {
        guard slots[index].generation != nil else { return }
        slots[index].generation = nil
        startOrder.removeAll { $0 == index }
        completions.removeValue(forKey: slots[index].id)?(.failure(error))
    }

    func release(_ index: Int) {
        guard let outcome = slots[index].generation?.outcome else { return }
        keepPrompt(of: index, evaluated: outcome.statistics.evaluatedPromptTokens)
        slots[index].generation = nil
        startOrder.removeAll { $0 == index }
        completions.removeValue(forKey: slots[index].id)?(.success(outcome))
    }
}

/// One sequence's sampling after a decode step. With many sequences, samplers that need only
/// their logits (no grammar, no thinking budget) and run llama.cpp's chain draw on several threads
/// at once: each touches only its own request's state, and the logits were fetched from the
/// context beforehand, on the scheduler's thread. The others draw one after another: greedy
/// samplers (an arg-max pass each) and those that draw through the context.
final class SamplingDraw: @unchecked Sendable {
    let slot: Int
    let generation: ActiveGeneration
    let batchIndex: Int32
    let logits: UnsafeMutablePointer<Float>?
    private(set) var error: (any Error)?

    init(slot: Int, generation: ActiveGeneration, batchIndex: Int32, logits: UnsafeMutablePointer<Float>?) {
        self.slot = slot
        self.generation = generation
        self.batchIndex = batchIndex
        self.logits = logits
    }

    /// From how many chain draws on they run on several threads: below it, waking the threads
    /// slows the next `llama_decode` call by more than drawing on them saves (measured on an
    /// H200 host; the numbers are in docs/PERFORMANCE.md, "Threads").
    static let parallelThreshold = 32

    /// Samples every draw; errors stay in each draw.
    static func run(_ draws: [SamplingDraw], in context: InferenceContext, vocabularySize vocabulary: Int) {
        let independent = draws.filter { $0.logits != nil }
        if independent.count(where: { !$0.generation.samplesGreedily }) >= parallelThreshold {
            let chains = independent.filter { !$0.generation.samplesGreedily }
            DispatchQueue.concurrentPerform(iterations: chains.count) { chains[$0].draw(vocabulary: vocabulary) }
            independent.filter(\.generation.samplesGreedily).forEach { $0.draw(vocabulary: vocabulary) }
        } else {
            independent.forEach { $0.draw(vocabulary: vocabulary) }
        }
        for draw in draws where draw.logits == nil {
            do {
                try draw.generation.sample(at: draw.batchIndex, in: context)
            } catch {
                draw.error = error
            }
        }
    }

    private func draw(vocabulary: Int) {
        guard let logits else { return }
        do {
            try generation.sample(logits: logits, vocabularySize: vocabulary)
        } catch {
            self.error = error
        }
    }
}

extension BatchScheduler {
    /// Empties the KV cache of every sequence, as llama-batched-bench does before each test, so
    /// that a measurement starts from the same cells (llama.cpp places new tokens after those
    /// used last, and attention covers every cell up to the last one in use).
    /// - Returns: false, and clears nothing, while requests run or wait.
    package func clearCache() -> Bool {
        guard waiting.isEmpty, slots.allSatisfy(\.isIdle) else { return false }
        context.clearMemory()
        for index in slots.indices { slots[index].tokens = [] }
        return true
    }

    /// The longest prefix of `prompt` that a new request would take from the cache now.
    package func reusablePrefix(of prompt: [Int32]) -> Int {
        slots.indices.map { index in
            let count = slots[index].reusablePrefix(of: prompt)
            return isWhole(index, count) ? count : 0
        }.max() ?? 0
    }

    /// Whether the first `count` positions of slot `index` are still in the cache (a sliding
    /// window may have dropped some).
    func isWhole(_ index: Int, _ count: Int) -> Bool {
        !context.windowEvicted(in: slots[index].id, before: count)
    }

    /// The saved state of an idle sequence that holds a prefix of `tokens` and nothing else
    /// (the longest such, computed with the model's adapter scales), with the tokens it holds;
    /// nil when none does.
    package func snapshot(matching tokens: [Int32]) -> (state: [UInt8], tokens: [Int32])? {
        let candidates = slots.filter { slot in
            slot.isIdle && slot.adapterScales == defaultAdapterScales && !slot.tokens.isEmpty && slot.tokens.count <= tokens.count && tokens.starts(with: slot.tokens)
        }
        guard let slot = candidates.max(by: { $0.tokens.count < $1.tokens.count }) else { return nil }
        return (context.sequenceState(slot.id), slot.tokens)
    }

    /// Loads a saved sequence `state` holding `tokens`, computed with the model's adapter scales,
    /// into the least recently used idle sequence, so that a later request can reuse it.
    /// - Returns: false when no sequence is idle (nothing is loaded then).
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` when llama.cpp rejects the state;
    ///   the sequence then holds what it held before.
    package func restore(_ state: [UInt8], tokens: [Int32]) throws -> Bool {
        let idle = slots.indices.filter { slots[$0].isIdle }
        guard let index = idle.min(by: { (slots[$0].tokens.isEmpty ? 0 : 1, slots[$0].lastUsed)
                                         < (slots[$1].tokens.isEmpty ? 0 : 1, slots[$1].lastUsed) }) else { return false }
        let id = slots[index].id
        // A state llama.cpp rejects must not cost the sequence what it held.
        let backup = slots[index].tokens.isEmpty ? nil : (state: context.sequenceState(id), tokens: slots[index].tokens)
        slots[index].tokens = []
        guard context.restoreSequenceState(state, into: id, tokenCount: tokens.count) else {
            if let backup, context.restoreSequenceState(backup.state, into: id, tokenCount: backup.tokens.count) {
                slots[index].tokens = backup.tokens
            }
            throw LocalModel.Error.invalidOption(name: "state", reason: "llama.cpp could not restore the saved cache")
        }
        useCounter += 1
        slots[index].tokens = tokens
        slots[index].lastUsed = useCounter
        slots[index].adapterScales = defaultAdapterScales
        return true
    }
}
