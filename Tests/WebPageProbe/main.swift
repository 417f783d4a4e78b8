// webpage-probe: loads one page with the real load_webpage and prints the outcome as one
// JSON object, for tests that must run it somewhere the test process cannot go (inside a
// network namespace with its own DNS server).
//
//     webpage-probe URL [--allow-private-networks] [--timeout SECONDS]
//
// Prints {"url", "title", "text", "truncated"} or {"error", "kind"}; exits 0 either way.
import Foundation
import LocalLLMKitTools

var arguments = Array(CommandLine.arguments.dropFirst())
var allowsPrivateNetworks = false
var timeout = Duration.seconds(10)
if let index = arguments.firstIndex(of: "--allow-private-networks") {
    allowsPrivateNetworks = true
    arguments.remove(at: index)
}
if let index = arguments.firstIndex(of: "--timeout"), index + 1 < arguments.count, let seconds = Double(arguments[index + 1]) {
    timeout = .milliseconds(Int(seconds * 1000))
    arguments.removeSubrange(index...index + 1)
}
guard arguments.count == 1 else {
    FileHandle.standardError.write(Data("usage: webpage-probe URL [--allow-private-networks] [--timeout SECONDS]\n".utf8))
    exit(2)
}

let tool = WebPageTool(configuration: .init(timeout: timeout, allowsPrivateNetworks: allowsPrivateNetworks))
var report: [String: String] = [:]
do {
    let page = try await tool.call(.init(url: arguments[0]))
    report = ["url": page.url, "title": page.title ?? "", "text": page.text, "truncated": "\(page.truncated)"]
} catch let error as WebPageTool.FetchError {
    report = ["error": error.description, "kind": error.kind.rawValue]
} catch {
    report = ["error": "\(error)", "kind": "other"]
}
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
