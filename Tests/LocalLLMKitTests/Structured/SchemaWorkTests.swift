import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Checking a schema takes time linear in the schema, whatever its references and merges do,
/// and its total work is bounded (not only its depth and size). Steps are counted, not timed.
@Suite("Schema work")
struct SchemaWorkTests {
    /// `count` definitions, each only a reference to the next; the last is a string.
    static func plainChain(_ count: Int) -> OrderedJSON {
        var definitions: [(String, OrderedJSON)] = [("d\(count)", .object([("type", .string("string"))]))]
        for index in 0..<count {
            definitions.append(("d\(index)", .object([("$ref", .string("#/$defs/d\(index + 1)"))])))
        }
        return .object([("$ref", .string("#/$defs/d0")), ("$defs", .object(definitions))])
    }

    /// The steps counted before `document` was accepted or refused, and the error if refused.
    static func work(_ document: OrderedJSON) -> (steps: Int, error: OutputFormat.Error?) {
        var work = SchemaWork()
        do {
            _ = try SchemaNormalizer.prepare(document, name: "schema", work: &work)
            return (work.steps, nil)
        } catch let error as OutputFormat.Error {
            return (work.steps, error)
        } catch {
            Issue.record("unexpected error \(error)")
            return (work.steps, nil)
        }
    }

    @Test("Daemon #1: a 10,000-link $ref chain is refused after work linear in its length")
    func referenceChainIsLinear() throws {
        let (small, smallError) = Self.work(Self.plainChain(10_000))
        let (large, largeError) = Self.work(Self.plainChain(20_000))
        // Refused (64 levels of references), naming the depth, as before: only faster.
        #expect(smallError.map { "\($0)".contains("deeper than") } == true, "\(String(describing: smallError))")
        #expect(largeError.map { "\($0)".contains("deeper than") } == true)
        // Twice the links, about twice the work (quadratic would be four times): a few steps a link.
        #expect(large <= small * 5 / 2, "steps \(small) → \(large)")
        #expect(small <= 10 * 10_000, "steps \(small)")
    }

    @Test("Daemon #1: a schema that fans out into many recursive references is checked in linear work")
    func recursiveFanOutIsLinear() throws {
        // Each definition is an object whose properties refer back to the root and on to the
        // next; asking whether each recursive reference reaches uniqueItems used to walk every
        // reachable definition again.
        func document(_ count: Int) -> OrderedJSON {
            var definitions: [(String, OrderedJSON)] = []
            for index in 0..<count {
                let next = index + 1 < count ? "#/$defs/d\(index + 1)" : "#/$defs/leaf"
                definitions.append(("d\(index)", .object([("anyOf", .array([
                    .object([("$ref", .string("#/$defs/d0"))]), .object([("$ref", .string(next))]),
                ]))])))
            }
            definitions.append(("leaf", .object([("type", .array([.string("array")])), ("items", .object([("type", .string("integer"))])),
                                                 ("uniqueItems", .bool(true))])))
            return .object([("$ref", .string("#/$defs/d0")), ("$defs", .object(definitions))])
        }
        let (small, _) = Self.work(document(30))
        let (large, _) = Self.work(document(60))
        #expect(large <= small * 3, "steps \(small) → \(large)")
    }

    @Test("Daemon #1: merges that double at every level stop at the step bound, naming it")
    func doublingMergesStopAtTheStepBound() throws {
        var definitions: [(String, OrderedJSON)] = [("m40", .object([("type", .string("object")),
                                                                     ("properties", .object([("x", .object([("type", .string("string"))]))]))]))]
        for index in 0..<40 {
            let next = OrderedJSON.object([("$ref", .string("#/$defs/m\(index + 1)"))])
            definitions.append(("m\(index)", .object([("allOf", .array([next, next]))])))
        }
        let document = OrderedJSON.object([("allOf", .array([.object([("$ref", .string("#/$defs/m0"))]),
                                                              .object([("$ref", .string("#/$defs/m0"))])])),
                                           ("$defs", .object(definitions))])
        let (steps, error) = Self.work(document)
        let message = try #require(error).errorDescription ?? ""
        #expect(message.contains("steps") || message.contains("deeper than"), "\(message)")
        #expect(steps <= SchemaLimits.maximumCheckSteps + 100_000)
    }

    @Test("Daemon #1: the placeholder word is found in one pass, whatever the document repeats")
    func placeholderWordAvoidsTheDocument() {
        let crowded = (0..<2_000).map { "llmkit" + String(repeating: "x", count: $0) }.joined(separator: " ")
        let word = SchemaNormalizer.nonce(avoiding: crowded)
        #expect(!crowded.contains(word))
        #expect(word == "llmkit" + String(repeating: "x", count: 2_000))
        #expect(SchemaNormalizer.nonce(avoiding: "no such word") == "llmkit")
    }
}
