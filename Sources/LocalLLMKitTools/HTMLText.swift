import CHTMLText
import Foundation

/// The title and readable text of an HTML page (libxml2's HTML parser, through CHTMLText).
struct HTMLText: Equatable {
    var title: String?
    var text: String

    /// Parses `data` as HTML; `encoding` is the charset the server declared, if any.
    init(data: Data, url: String, encoding: String?) {
        let extracted = data.withUnsafeBytes { bytes in
            llmkit_html_extract(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, url, encoding)
        }
        defer { llmkit_html_free(extracted) }
        title = extracted.title.map { Self.normalize(String(cString: $0)) }
        text = extracted.text.map { Self.normalize(String(cString: $0)) } ?? ""
    }

    /// Collapses runs of spaces, and keeps one blank line between blocks.
    static func normalize(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\u{A0}" }).joined(separator: " ")
        }
        var paragraphs: [String] = []
        var current: [String] = []
        for line in lines {
            if line.isEmpty {
                if !current.isEmpty { paragraphs.append(current.joined(separator: "\n")) }
                current = []
            } else {
                current.append(line)
            }
        }
        if !current.isEmpty { paragraphs.append(current.joined(separator: "\n")) }
        return paragraphs.joined(separator: "\n\n")
    }
}
