import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Model references and catalog")
struct ModelReferenceTests {
    @Test("catalog ids, URLs, hf: paths and org/repo:QUANT resolve to download URLs")
    func references() throws {
        let gemma = try ModelLibrary.DownloadRequest(reference: "gemma-3-270m")
        #expect(gemma.sha256 == LibraryFixtures.gemmaSHA256 && gemma.bytes == 253_113_024)

        let url = try ModelLibrary.DownloadRequest(reference: "https://example.com/models/a.gguf")
        #expect(url.urls == [URL(string: "https://example.com/models/a.gguf")!] && url.fileName == "a.gguf" && url.sha256 == nil)

        let hf = try ModelLibrary.DownloadRequest(reference: "hf:org/repo/sub/file-Q8_0.gguf")
        #expect(hf.urls == [URL(string: "https://huggingface.co/org/repo/resolve/main/sub/file-Q8_0.gguf")!])
        #expect(hf.fileName == "file-Q8_0.gguf")

        let quant = try ModelLibrary.DownloadRequest(reference: "org/repo:q4_k_m",
                                             listing: ["README.md", "model-Q8_0.gguf", "model-Q4_K_M.gguf"])
        #expect(quant.urls == [URL(string: "https://huggingface.co/org/repo/resolve/main/model-Q4_K_M.gguf")!])

        #expect(quant.projector == nil)

        // A vision repository: the model of the quantization, and its projector with it.
        let vision = try ModelLibrary.DownloadRequest(reference: "org/vlm:Q8_0", listing: [
            "vlm-Q8_0.gguf", "vlm-Q4_K_M.gguf", "mmproj-vlm-f16.gguf", "mmproj-vlm-Q8_0.gguf", "README.md",
        ])
        #expect(vision.urls == [URL(string: "https://huggingface.co/org/vlm/resolve/main/vlm-Q8_0.gguf")!])
        #expect(vision.projector?.urls == [URL(string: "https://huggingface.co/org/vlm/resolve/main/mmproj-vlm-Q8_0.gguf")!])
        let f16 = try ModelLibrary.DownloadRequest(reference: "org/vlm:Q4_K_M", listing: [
            "vlm-Q4_K_M.gguf", "vlm.mmproj-bf16.gguf", "sub/vlm.mmproj-F16.gguf",
        ])
        #expect(f16.projector?.fileName == "mmproj-vlm.mmproj-F16.gguf")
        #expect(f16.projector?.urls.first?.path == "/org/vlm/resolve/main/sub/vlm.mmproj-F16.gguf")

        let lfm2 = try ModelLibrary.DownloadRequest(reference: "LiquidAI/LFM2-2.6B-GGUF:Q4_K_M")     // listing from the catalog
        #expect(lfm2.sha256 == ModelCatalog.lfm2_2_6b.sha256 && lfm2.bytes == 1_563_668_704)
    }

    @Test("bad references are refused with the reference named", arguments: [
        "hf:org/repo/../../etc/passwd.gguf", "hf:org/repo", "https://example.com/a/../b.gguf", "ftp://example.com/a.gguf",
        "org/repo:Q4_K_M", "nothing-like-a-model", "org/repo:Q4",
    ])
    func badReferences(_ reference: String) {
        let listing = reference == "org/repo:Q4" ? ["a-Q4_0.gguf", "a-Q4_K_M.gguf"] : nil
        #expect {
            try ModelLibrary.DownloadRequest(reference: reference, listing: listing)
        } throws: { error in
            guard case ModelLibrary.Error.invalidReference(let named, _) = error else { return false }
            return named == reference
        }
    }

    @Test("file names with folders or a leading dot are refused")
    func badFileNames() {
        for name in ["../evil.gguf", "a/b.gguf", ".hidden.gguf", "..", ""] {
            #expect(throws: ModelLibrary.Error.self) {
                try ModelLibrary.DownloadRequest(urls: [URL(string: "https://example.com/x.gguf")!], fileName: name)
            }
        }
        #expect(throws: ModelLibrary.Error.self) {
            try ModelLibrary.DownloadRequest(urls: [URL(string: "https://example.com/x.gguf")!], sha256: "abc")
        }
    }

    @Test("recommended(forMemory:) picks the largest chat model that fits; never the base model")
    func recommendation() {
        #expect(ModelCatalog.recommended(forMemory: 128 << 20) == nil)
        #expect(ModelCatalog.recommended(forMemory: 256 << 20) == ModelCatalog.smolLM2_135mInstruct)
        #expect(ModelCatalog.recommended(forMemory: 768 << 20) == ModelCatalog.smolLM2_135mInstruct)
        #expect(ModelCatalog.recommended(forMemory: 1 << 30) == ModelCatalog.qwen2_5Coder_0_5bInstruct)
        #expect(ModelCatalog.recommended(forMemory: 16 << 30) == ModelCatalog.lfm2_2_6b)
        let machine = ModelCatalog.recommendedForThisMachine()
        #expect(machine.memoryBytes > 0 && machine.entry == ModelCatalog.recommended(forMemory: machine.memoryBytes))
        #expect(ModelCatalog.gemma3_270m.sha256 == LibraryFixtures.gemmaSHA256)
        #expect(ModelCatalog.lfm2_2_6b.sha256 == "384bc877b6c37064982f96885bef69e4475919f5969218ed4e3b9399ae0340df")
    }
}
