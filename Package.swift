// swift-tools-version: 6.0
import PackageDescription

// llama.cpp is found through the pkg-config files that `scripts/bootstrap` installs
// (`llama.pc` and `llama-common.pc`). No unsafe flags: another package can depend on
// this one by version.
let package = Package(
    name: "LocalLLMKit",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "LocalLLMKit", targets: ["LocalLLMKit"]),
        .library(name: "LocalLLMKitTools", targets: ["LocalLLMKitTools"]),
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
        .target(
            name: "CLlamaBridge",
            dependencies: ["CLlama", "CLlamaCommon"]
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
        .target(
            name: "LocalLLMKit",
            dependencies: ["CLlama", "CLlamaBridge", .target(name: "CDigest", condition: .when(platforms: [.linux]))]
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
        .target(
            name: "LocalLLMKitTools",
            dependencies: ["LocalLLMKit", "CHTMLText"]
        ),
        .executableTarget(
            name: "llmkit",
            dependencies: ["LocalLLMKit", "LocalLLMKitTools"]
        ),
        .testTarget(
            name: "LocalLLMKitTests",
            dependencies: ["LocalLLMKit", "CLlama"],
            exclude: ["Support/download_server.py"]
        ),
        .testTarget(
            name: "LocalLLMKitToolsTests",
            dependencies: ["LocalLLMKitTools", "LocalLLMKit"],
            exclude: ["Support/http_server.py"]
        ),
        .testTarget(
            name: "llmkitTests",
            dependencies: ["LocalLLMKit", "CLlama"]
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
