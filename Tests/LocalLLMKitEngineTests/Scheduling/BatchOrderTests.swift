import Testing
@testable import LocalLLMKitEngine

/// The order of a step's rows for a cache with a KV stream per sequence (no model: the order is
/// what llama.cpp's sequential split needs, see ``BatchScheduler/orderedBySequence(_:)``).
@Suite("Batch order")
struct BatchOrderTests {
    static func rows(_ sequence: Int32, _ count: Int, from position: Int = 10) -> [InferenceContext.Entry] {
        (0..<count).map { .init(token: Int32(100 * Int(sequence) + $0), position: position + $0, sequence: sequence, wantsLogits: true) }
    }

    @Test("generating rows and a prompt between them come out in the sequences' order, each run whole")
    func promptBetweenGeneratingSequences() throws {
        // Sequences 0, 1 and 3 generate (3 with a draft of two tokens), sequence 2 starts its prompt.
        let entries = Self.rows(0, 1) + Self.rows(1, 1) + Self.rows(3, 3) + Self.rows(2, 5, from: 0)
        let ordered = try #require(BatchScheduler.orderedBySequence(entries))
        #expect(ordered.entries.map(\.sequence) == [0, 1, 2, 2, 2, 2, 2, 3, 3, 3])
        #expect(ordered.entries.filter { $0.sequence == 2 }.map(\.position) == [0, 1, 2, 3, 4])
        #expect(ordered.entries.filter { $0.sequence == 3 }.map(\.token) == [300, 301, 302])
        #expect(ordered.starts == [0: 0, 1: 1, 2: 2, 3: 7])
        // Every row is kept, once.
        #expect(ordered.entries.map(\.token).sorted() == entries.map(\.token).sorted())
    }

    @Test("rows already in order, one sequence, or none are left as they are")
    func alreadyOrdered() {
        #expect(BatchScheduler.orderedBySequence(Self.rows(0, 1) + Self.rows(2, 4) + Self.rows(5, 1)) == nil)
        #expect(BatchScheduler.orderedBySequence(Self.rows(4, 7)) == nil)
        #expect(BatchScheduler.orderedBySequence([]) == nil)
    }
}
