// swift-tools-version: 6.0
import PackageDescription

// llama.cpp is found through the pkg-config files that `scripts/bootstrap` installs
// (`llama.pc` and `llama-common.pc`). No unsafe flags: another package can depend on
// this one by version.
let package = Package(
    name: "LocalLLMKit",
    // Linux is what is tested (CPU and CUDA). macOS is meant to work (Metal) but is not verified;
    // iOS is not supported: it would need llama.cpp as an XCFramework.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LocalLLMKit", targets: ["LocalLLMKit"]),
        .library(name: "LocalLLMKitTools", targets: ["LocalLLMKitTools"]),
        .library(name: "LocalLLMKitServer", targets: ["LocalLLMKitServer"]),
        .executable(name: "llmkit", targets: ["llmkit"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLlama",
            pkgConfig: "llama",
            providers: [.brew(["llama.cpp"])]
        ),
        .systemLibrary(
            name: "CLlamaCommon",
            pkgConfig: "llama-common"
        ),
        // The bridge's engine half (sampler, log switch, grammar check) takes plain data;
        // its chat half (templates, JSON Schema) builds on it, never the other way round.
        .target(
            name: "CLlamaEngineBridge",
            dependencies: ["CLlama", "CLlamaCommon"]
        ),
        // llama.cpp's multimodal library (images and audio), and the bridge the engine calls it through.
        .systemLibrary(
            name: "CLlamaMTMD",
            pkgConfig: "llama-mtmd"
        ),
        .target(
            name: "CLlamaVisionBridge",
            dependencies: ["CLlama", "CLlamaMTMD", "CLlamaEngineBridge"]
        ),
        .target(
            name: "CLlamaChatBridge",
            dependencies: ["CLlama", "CLlamaCommon", "CLlamaEngineBridge"]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "CDigest",
            dependencies: [.target(name: "COpenSSL", condition: .when(platforms: [.linux]))]
        ),
        // The engine: models, contexts, sampling, tokenization, GGUF. A leaf that takes plain
        // values; chat, structured output, tools and the library build on it (`package` access).
        .target(
            name: "LocalLLMKitEngine",
            dependencies: ["CLlama", "CLlamaEngineBridge", "CLlamaVisionBridge",
                           .target(name: "CDigest", condition: .when(platforms: [.linux]))]
        ),
        .target(
            name: "LocalLLMKit",
            dependencies: ["LocalLLMKitEngine", "CLlamaChatBridge",
                           .target(name: "CDigest", condition: .when(platforms: [.linux]))]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .target(
            name: "CHTMLText",
            dependencies: ["CLibXML2"]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .target(
            name: "CCurlBridge",
            dependencies: ["CCurl"]
        ),
        .target(
            name: "LocalLLMKitTools",
            dependencies: ["LocalLLMKit", "CHTMLText", "CCurlBridge"]
        ),
        // cpp-httplib, llama-server's HTTP library, from llama.cpp's tree (llmkit-httplib.pc).
        .systemLibrary(
            name: "CHTTPLib",
            pkgConfig: "llmkit-httplib"
        ),
        // A C interface over cpp-httplib: requests in, answers (whole or streamed) out.
        .target(
            name: "CHTTPServerBridge",
            dependencies: ["CHTTPLib"]
        ),
        // The OpenAI-compatible HTTP server (`llmkit serve`), embeddable in an app.
        .target(
            name: "LocalLLMKitServer",
            dependencies: ["LocalLLMKit", "LocalLLMKitEngine", "CHTTPServerBridge"]
        ),
        // libedit's line editing and history for `llmkit chat` on a terminal (the CLI only).
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        .executableTarget(
            name: "llmkit",
            dependencies: ["LocalLLMKit", "LocalLLMKitTools", "LocalLLMKitServer", "CEditLine"]
        ),
        // What the test targets share: the reference models' paths, GGUF writers and forgers, a
        // fault-injecting download server. Not a product: nothing outside this package sees it.
        // It builds on the engine alone, so that the engine's tests do too.
        .target(
            name: "LocalLLMKitTestSupport",
            dependencies: ["LocalLLMKitEngine", "CLlama"],
            path: "Tests/LocalLLMKitTestSupport",
            exclude: ["download_server.py"]
        ),
        // The engine's own tests: they build against the engine alone (check-engine-leaf checks).
        .testTarget(
            name: "LocalLLMKitEngineTests",
            dependencies: ["LocalLLMKitEngine", "LocalLLMKitTestSupport"]
        ),
        .testTarget(
            name: "LocalLLMKitTests",
            dependencies: ["LocalLLMKit", "LocalLLMKitEngine", "CLlama", "LocalLLMKitTestSupport"]
        ),
        // Test support: loads one page with the real load_webpage and prints the outcome as
        // JSON, so that a test can run it inside a network namespace of its own.
        .executableTarget(
            name: "webpage-probe",
            dependencies: ["LocalLLMKitTools"],
            path: "Tests/WebPageProbe"
        ),
        .testTarget(
            name: "LocalLLMKitToolsTests",
            dependencies: ["LocalLLMKitTools", "LocalLLMKit", "webpage-probe", "LocalLLMKitTestSupport"],
            exclude: ["Support/http_server.py", "Support/rebinding_lab.py"]
        ),
        .testTarget(
            name: "LocalLLMKitServerTests",
            dependencies: ["LocalLLMKitServer", "LocalLLMKit", "LocalLLMKitTestSupport"],
            exclude: ["Support"]     // the Python clients the tests run
        ),
        .testTarget(
            name: "llmkitTests",
            dependencies: ["LocalLLMKit", "CLlama", "LocalLLMKitTestSupport"],
            exclude: ["Support/image_server_parity.py"]
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
