import Foundation
import LocalLLMKit
import Testing

@Suite("llmkit info and bench")
struct InfoAndBenchTests {
    @Test("info --json reports the header without loading weights")
    func infoJSON() throws {
        let url = try ReferenceModel.url()
        let output = try CommandRunner.llmkit(["info", url.path, "--json"])
        #expect(output.status == 0)
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let file = try GGUFFile(contentsOf: url)
        #expect(object["architecture"] as? String == "gemma3")
        #expect(object["quantization"] as? String == "Q4_K_M")
        #expect(object["parameter_count"] as? Int == Int(file.parameterCount))
        #expect(object["training_context_length"] as? Int == 32768)
        #expect(object["has_chat_template"] as? Bool == false)
        #expect(object["file_size"] as? Int == Int(file.fileSize))
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["general.architecture"] as? String == "gemma3")
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.map { $0["name"] as? String } == ComputeDevice.all.map(\.name))
        #expect(devices.contains { $0["kind"] as? String == "cpu" && ($0["total_memory"] as? Int ?? 0) > 0 })
    }

    @Test("info --json: property names in snake_case, a file's own metadata keys exactly as the file has them")
    func infoKeyPolicy() throws {
        let folder = try TemporaryDirectory()
        var builder = GGUFBuilder.tinyModel()
        builder.set("Custom.MixedCase_keyName", .uint32(7))
        builder.set("general.sizeLabel", .string("tiny"))
        let url = folder.file("mixed.gguf")
        try builder.write(to: url)
        let output = try CommandRunner.llmkit(["info", url.path, "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stderr)")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["Custom.MixedCase_keyName"] as? Int == 7 && metadata["general.sizeLabel"] as? String == "tiny")
        #expect(Set(object.keys).isSuperset(of: Set<String>(["file_size", "gguf_version", "parameter_count", "training_context_length",
                                                 "has_chat_template", "tensor_count", "loadable", "devices"])), "\(object.keys)")
        #expect(!object.keys.contains { key in key.contains { $0.isUppercase } }, "\(object.keys)")
    }

    @Test("info prints a readable summary")
    func infoText() throws {
        let output = try CommandRunner.llmkit(["info"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("architecture"))
        #expect(output.stdout.contains("Q4_K_M"))
    }

    @Test("bench --json has llama-bench's fields, one object per test")
    func benchJSON() throws {
        let output = try CommandRunner.llmkit(["bench", "-p", "16", "-n", "4", "-r", "2", "-t", "2", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let array = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == 2)
        #expect(array.map { $0["n_prompt"] as? Int } == [16, 0])
        #expect(array.map { $0["n_gen"] as? Int } == [0, 4])
        for object in array {
            #expect(object["n_threads"] as? Int == 2)
            let samples = try #require(object["samples_ts"] as? [Double])
            #expect(samples.count == 2)
            let average = try #require(object["avg_ts"] as? Double)
            #expect(abs(average - samples.reduce(0, +) / 2) < 1e-6 * average)
            #expect(object["stddev_ts"] is Double)
            let nanoseconds = try #require(object["samples_ns"] as? [Int])
            #expect(nanoseconds.count == 2)
            #expect(object["avg_ns"] as? Int == (nanoseconds[0] + nanoseconds[1] + 1) / 2
                    || object["avg_ns"] as? Int == (nanoseconds[0] + nanoseconds[1]) / 2)
            #expect(object["n_batch"] as? Int == 2048)
            // This machine has no GPU: llama-bench would say backend CPU, no GPU layers.
            #expect(object["backends"] as? String == LocalModel.backendNames.joined(separator: ","))
            #expect(object["n_gpu_layers"] as? Int == (ComputeDevice.gpus.isEmpty ? 0 : 19))
            #expect((object["devices"] as? [[String: Any]])?.count == ComputeDevice.all.count)
        }
    }

    @Test("bench --parallel --jsonl has llama-batched-bench's fields per B, and --step-times adds up each step")
    func parallelBenchStepTimes() throws {
        let output = try CommandRunner.llmkit(["bench", "--parallel", "1,2", "-p", "8", "-n", "4", "-t", "2", "--jsonl", "--step-times"])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = try output.stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.map { $0["pl"] as? Int } == [1, 2])
        for line in lines {
            #expect(line["pp"] as? Int == 8 && line["tg"] as? Int == 4)
            #expect((line["speed_tg"] as? Double ?? 0) > 0 && (line["t_pp"] as? Double ?? 0) > 0)
            #expect(line["n_kv"] as? Int == (line["pl"] as? Int ?? 0) * 12)
        }
        // With --jsonl the tables go to stderr: per B, 4 generation steps (the first token comes
        // from the prompt's step), none with filler rows (no sequence idles), seven phases that
        // add up to the total; then one step with the prompts, without generating rows.
        let tables = output.stderr.components(separatedBy: "ms per step with prompt tokens")
        try #require(tables.count == 2, "\(output.stderr)")
        func rows(_ table: String) -> [[Double]] {
            table.split(separator: "\n").filter { $0.hasPrefix("| 1 |") || $0.hasPrefix("| 2 |") }.map {
                $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.compactMap(Double.init)
            }
        }
        #expect(rows(tables[0]).count == 2, "\(output.stderr)")
        for cells in rows(tables[0]) {
            try #require(cells.count == 11, "\(cells)")
            #expect(cells[1] == 4 && cells[2] == 0, "\(cells)")
            #expect(abs(cells[3..<10].reduce(0, +) - cells[10]) < 0.01, "\(cells)")
            #expect(cells[4] > 0, "\(cells)")     // inside llama_decode
        }
        #expect(rows(tables[1]).count == 2, "\(output.stderr)")
        for cells in rows(tables[1]) {
            try #require(cells.count == 11, "\(cells)")
            #expect(cells[1] == 1 && cells[2] == 0, "\(cells)")
            #expect(abs(cells[3..<10].reduce(0, +) - cells[10]) < 0.01, "\(cells)")
            #expect(cells[4] > 0, "\(cells)")
        }
    }

    @Test("bench --parallel --mixed --step-times reports the workload, then its generation and prompt steps")
    func mixedWorkloadStepTimes() throws {
        let output = try CommandRunner.llmkit(["bench", "--parallel", "2", "--mixed", "--duration", "5", "-t", "2", "--step-times"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("mixed workload: 2 clients"), "\(output.stdout)")
        let tables = output.stdout.components(separatedBy: "ms per step with prompt tokens")
        try #require(tables.count == 2, "\(output.stdout)")
        for (table, width) in zip(tables, [11, 11]) {
            let cells = try #require(table.split(separator: "\n").first { $0.hasPrefix("| 2 |") }, "\(table)")
                .split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.compactMap(Double.init)
            try #require(cells.count == width, "\(cells)")
            #expect(cells[1] > 0, "\(cells)")          // steps of each kind
            #expect(abs(cells[(width - 8)..<(width - 1)].reduce(0, +) - cells[width - 1]) < 0.01, "\(cells)")
        }
    }

    @Test("bench --parallel --gaps times generation steps with idle sequences between generating ones, filled and not")
    func gapBench() throws {
        let output = try CommandRunner.llmkit(["bench", "--parallel", "4", "--gaps", "-p", "8", "-n", "6", "-r", "1", "-t", "2"])
        #expect(output.status == 0, "\(output.stderr)")
        let cells = try #require(output.stdout.split(separator: "\n").first { $0.hasPrefix("| 4 |") }, "\(output.stdout)")
            .split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces.union(["*"])) }.compactMap(Double.init)
        try #require(cells.count == 12, "\(cells)")
        // 2 idle sequences (1 and 3), one between generating ones; 6 steps a run, each filled.
        #expect(cells[1] == 2 && cells[2] == 6 && cells[3] == 6, "\(cells)")
        #expect(cells[4] > 0 && cells[5] >= cells[4] && cells[6] > 0 && cells[7] >= cells[6], "\(cells)")
        #expect(abs(cells[7] / cells[5] - cells[8]) < 0.01, "\(cells)")
        // As measured: the first gap step filled, the second not, the rest by their times.
        #expect((1...5).contains(cells[9]) && cells[10] > 0, "\(cells)")
        #expect(abs(cells[10] / min(cells[5], cells[7]) - cells[11]) < 0.01, "\(cells)")
    }

    @Test("bench --parallel keeps KV cells per sequence on the CPU unless --kv-unified (-kvu) asks for one pool")
    func parallelBenchCacheLayout() throws {
        for (flags, unified) in [([String](), 0), (["--kv-unified"], 1), (["-kvu"], 1), (["-no-kvu"], 0)] {
            let output = try CommandRunner.llmkit(["bench", "--parallel", "2", "-p", "8", "-n", "2", "-t", "2"] + flags)
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout.contains("kv_unified = \(unified)"), "\(flags): \(output.stdout)")
            #expect(output.stdout.contains("|     8 |      2 |    2 |"), "\(output.stdout)")
        }
    }

    @Test("bench prints llama-bench's table")
    func benchTable() throws {
        let output = try CommandRunner.llmkit(["bench", "-p", "8", "-n", "2", "-r", "1"])
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("| model") == true)
        #expect(lines.first?.contains("| ngl |") == true)
        #expect(lines.filter { $0.hasPrefix("device: ") }.count == ComputeDevice.all.count)
        #expect(lines.contains { $0.contains("pp8") })
        #expect(lines.contains { $0.contains("tg2") })
    }
}
