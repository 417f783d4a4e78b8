import Testing
@testable import LocalLLMKitEngine

@Suite("Stop sequences")
struct StopSequenceMatcherTests {
    @Test("a stop split across chunks is found and never emitted")
    func splitAcrossChunks() {
        var matcher = StopSequenceMatcher(stopSequences: ["END"])
        var emitted = ""
        for chunk in ["Hello E", "N", "D and more"] {
            let step = matcher.append(chunk)
            emitted += step.text
            if let stop = step.stop {
                #expect(stop == "END")
                #expect(emitted == "Hello ")
                return
            }
        }
        Issue.record("the stop sequence was not found")
    }

    @Test("text that only looks like a stop's start is released once it cannot match")
    func falseStart() {
        var matcher = StopSequenceMatcher(stopSequences: ["###"])
        #expect(matcher.append("a#").text == "a")
        #expect(matcher.append("#b").text == "##b")
        #expect(matcher.append("c#").text == "c")
        #expect(matcher.finish() == "#")
    }

    @Test("the earliest of several stops wins")
    func earliestWins() {
        var matcher = StopSequenceMatcher(stopSequences: ["world", "lo w"])
        let step = matcher.append("hello world")
        #expect(step.text == "hel")
        #expect(step.stop == "lo w")
    }

    @Test("multi-byte stops match on characters")
    func multiByte() {
        var matcher = StopSequenceMatcher(stopSequences: ["。"])
        let first = matcher.append("今日は")
        let second = matcher.append("晴れ。明日")
        #expect(first.text + second.text == "今日は晴れ")
        #expect(second.stop == "。")
    }

    @Test("without stops, text passes straight through")
    func noStops() {
        var matcher = StopSequenceMatcher(stopSequences: [])
        #expect(matcher.append("abc") == .init(text: "abc", stop: nil))
        #expect(matcher.finish() == "")
    }
}
