import Testing
@testable import LocalLLMKitEngine

@Suite("Choosing a sequence for a new request")
struct SlotPlacementTests {
    static func slot(_ id: Int32, _ tokens: [Int32], used: UInt64 = 0) -> SequenceSlot {
        SequenceSlot(id: id, tokens: tokens, lastUsed: used)
    }

    /// A sequence with a request generating on it (its sampler needs the real model).
    static func busySlot(_ id: Int32, _ tokens: [Int32], model: LocalModel) throws -> SequenceSlot {
        var slot = SequenceSlot(id: id, tokens: tokens)
        let request = GenerationRequest(plan: .init(promptTokens: [2], options: .init()), contextLimit: 8,
                                        cancellation: .init()) { _ in }
        slot.generation = try ActiveGeneration(request: request, submitted: .now, sequence: id, cachedTokens: 0,
                                               model: model.handle, tokenizer: model.tokenizer)
        return slot
    }

    static func choose(_ prompt: [Int32], _ slots: [SequenceSlot], reusing: Bool = true) -> SlotPlacement? {
        SlotPlacement.choose(for: prompt, in: slots, reusingCache: reusing, usable: { _, _ in true })
    }

    @Test("an idle sequence holding only a prefix of the prompt is taken as it is")
    func ownPrefix() {
        let slots = [Self.slot(0, [9, 9]), Self.slot(1, [1, 2, 3]), Self.slot(2, [])]
        #expect(Self.choose([1, 2, 3, 4], slots) == SlotPlacement(slot: 1, source: nil, cachedTokens: 3))
    }

    @Test("the last prompt token is always evaluated again, for its logits")
    func lastTokenEvaluated() {
        let slots = [Self.slot(0, [1, 2, 3])]
        #expect(Self.choose([1, 2, 3], slots) == SlotPlacement(slot: 0, source: nil, cachedTokens: 2))
    }

    @Test("a prefix inside another conversation's cache is shared into an empty sequence, keeping that cache")
    func shareIntoEmpty() {
        let slots = [Self.slot(0, [1, 2, 3, 7, 7], used: 5), Self.slot(1, [5], used: 1), Self.slot(2, [], used: 9)]
        #expect(Self.choose([1, 2, 3, 4], slots) == SlotPlacement(slot: 2, source: 0, cachedTokens: 3))
    }

    @Test("without an empty sequence, the least recently used idle one takes the shared prefix")
    func shareIntoLeastRecentlyUsed() {
        let slots = [Self.slot(0, [1, 2, 3, 7], used: 5), Self.slot(1, [5], used: 2), Self.slot(2, [6], used: 3)]
        #expect(Self.choose([1, 2, 3, 4], slots) == SlotPlacement(slot: 1, source: 0, cachedTokens: 3))
    }

    @Test("the same prompt again takes the sequence that holds it and its old answer, unless one is empty")
    func samePromptAgain() {
        let full = [Self.slot(0, [1, 2, 3, 4, 8, 8], used: 5), Self.slot(1, [5, 6], used: 1), Self.slot(2, [6], used: 2)]
        #expect(Self.choose([1, 2, 3, 4], full) == SlotPlacement(slot: 0, source: nil, cachedTokens: 3))
        let withEmpty = full + [Self.slot(3, [], used: 9)]
        #expect(Self.choose([1, 2, 3, 4], withEmpty) == SlotPlacement(slot: 3, source: 0, cachedTokens: 3))
        // A prompt that leaves the cached text before its end shares the prefix instead.
        #expect(Self.choose([1, 2, 3, 7, 7], full) == SlotPlacement(slot: 1, source: 0, cachedTokens: 3))
    }

    @Test("when the matching sequence is the only idle one, it is cut back to the prefix")
    func onlyIdleIsCut() {
        let slots = [Self.slot(0, [1, 2, 9, 9])]
        #expect(Self.choose([1, 2, 3], slots) == SlotPlacement(slot: 0, source: nil, cachedTokens: 2))
    }

    @Test("without reuse, nothing is taken from the cache; an empty sequence is chosen first")
    func noReuse() {
        let slots = [Self.slot(0, [1, 2, 3], used: 1), Self.slot(1, [], used: 5)]
        #expect(Self.choose([1, 2, 3, 4], slots, reusing: false) == SlotPlacement(slot: 1, source: nil, cachedTokens: 0))
    }

    @Test("empty sequences are taken in id order, however recently they were used")
    func emptyInIdOrder() {
        // After the cache was emptied, sequence 0 (used last) comes first all the same, so that
        // requests submitted together hold consecutive ids.
        var slots = [Self.slot(0, [], used: 9), Self.slot(1, [], used: 0), Self.slot(2, [], used: 4), Self.slot(3, [7], used: 1)]
        var taken: [Int] = []
        while let placement = Self.choose([1, 2], slots, reusing: false) {
            taken.append(placement.slot)
            slots[placement.slot].tokens = [1, 2]
            slots[placement.slot].lastUsed = 10 + UInt64(taken.count)
            if taken.count == 4 { break }
        }
        #expect(taken == [0, 1, 2, 3])
    }

    @Test("a prefix that the sliding window has evicted is not reused")
    func evictedPrefix() {
        let slots = [Self.slot(0, [1, 2, 3]), Self.slot(1, [1, 2])]
        let placement = SlotPlacement.choose(for: [1, 2, 3, 4], in: slots, reusingCache: true, usable: { index, _ in index == 1 })
        #expect(placement == SlotPlacement(slot: 1, source: nil, cachedTokens: 2))
    }

    @Test("a busy sequence's prefix is shared; with every sequence busy, the request waits")
    func busySource() async throws {
        let model = try await TestModel.load()
        let slots = [try Self.busySlot(0, [1, 2, 3], model: model), Self.slot(1, [8])]
        #expect(Self.choose([1, 2, 3, 4], slots) == SlotPlacement(slot: 1, source: 0, cachedTokens: 3))
        #expect(Self.choose([1, 2], [try Self.busySlot(0, [1], model: model)]) == nil)
    }
}
