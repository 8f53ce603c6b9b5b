import Foundation

/// The relative links of the project's Markdown documents (README.md, CHANGELOG.md, docs/*.md) and those that
/// lead nowhere: to a file that is not there, or to an `#anchor` that no heading of the target makes.
///
/// Anchors are the ones GitHub gives headings: the heading's text in lowercase, spaces turned into `-`, and
/// every character that is not a letter, a digit, `-` or `_` left out (`## Resumable uploads (tus)` is
/// `#resumable-uploads-tus`); a heading met again gets `-1`, `-2`, … Links inside code (fenced blocks and code
/// spans) are text, not links; links with a scheme (`https:`, `mailto:`) are not checked.
enum DocumentationLinks {
    /// The repository's root, found from this file's place in it (`Tests/mediadTests/`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A link as written: the document's path relative to the root, its line, and the target.
    struct Link: Equatable, CustomStringConvertible {
        var document: String
        var line: Int
        var target: String

        var description: String { "\(document):\(line): (\(target))" }
    }

    /// The documents under `root` whose links are checked, relative to it: README.md, CHANGELOG.md, docs/*.md.
    static func documents(under root: URL) throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "CHANGELOG.md"] + docs
    }

    /// Every link of the documents under `root` whose file or anchor is missing, each with why.
    static func broken(under root: URL) throws -> [String] {
        var problems: [String] = []
        for document in try documents(under: root) {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            for link in links(in: text, of: document) where !isExternal(link.target) {
                if let problem = try check(link, under: root) { problems.append("\(link): \(problem)") }
            }
        }
        return problems
    }

    /// Why `link` leads nowhere, or nil when its file (and heading) is there.
    static func check(_ link: Link, under root: URL) throws -> String? {
        let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        let anchor = parts.count > 1 ? String(parts[1]) : nil
        let base = path.hasPrefix("/") ? root : root.appendingPathComponent(link.document).deletingLastPathComponent()
        let target =
            path.isEmpty
            ? root.appendingPathComponent(link.document) : base.appendingPathComponent(path).standardizedFileURL
        guard FileManager.default.fileExists(atPath: target.path) else { return "no file \(target.path)" }
        guard let anchor else { return nil }
        guard target.pathExtension == "md" else { return "an anchor into \(target.lastPathComponent), not Markdown" }
        let headings = anchors(in: try String(contentsOf: target, encoding: .utf8))
        return headings.contains(anchor) ? nil : "no heading makes #\(anchor) in \(target.lastPathComponent)"
    }

    /// Whether a target names a scheme (`https://…`, `mailto:…`) rather than a file of the repository.
    static func isExternal(_ target: String) -> Bool {
        guard let colon = target.firstIndex(of: ":"), let slash = target.firstIndex(of: "/") else {
            return target.contains(":")
        }
        return colon < slash
    }

    /// The anchors the headings of a Markdown text make, as GitHub makes them.
    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in prose(of: text).split(separator: "\n", omittingEmptySubsequences: false) {
            let hashes = line.prefix { $0 == "#" }.count
            guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { continue }
            let base = slug(String(line.dropFirst(hashes)).trimmingCharacters(in: .whitespaces))
            let repeats = seen[base, default: 0]
            seen[base] = repeats + 1
            anchors.insert(repeats == 0 ? base : "\(base)-\(repeats)")
        }
        return anchors
    }

    /// GitHub's anchor of a heading's text.
    static func slug(_ heading: String) -> String {
        String(
            heading.lowercased().unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) {
                    return Character(scalar)
                }
                return nil
            })
    }

    /// The text with fenced code blocks blanked out, each of their lines left empty so line numbers hold.
    static func prose(of text: String) -> String {
        var fence: String?
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if let open = fence {
                if trimmed.hasPrefix(open) { fence = nil }
                lines.append("")
            } else if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix(3))
                lines.append("")
            } else {
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The inline links and images of a document's text, `[text](target)` outside code, in order.
    static func links(in text: String, of document: String) -> [Link] {
        let bytes = Array(prose(of: text).utf8)
        var links: [Link] = []
        var line = 1
        var index = 0
        func lines(in range: Range<Int>) -> Int { bytes[range].filter { $0 == UInt8(ascii: "\n") }.count }
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\n"):
                line += 1
                index += 1
            case UInt8(ascii: "`"):
                // A code span: as many backticks close it as opened it; without a close they are text.
                let run = bytes[index...].prefix { $0 == UInt8(ascii: "`") }.count
                let fence = [UInt8](repeating: UInt8(ascii: "`"), count: run)
                if let close = firstRange(of: fence, in: bytes, from: index + run) {
                    line += lines(in: index..<close)
                    index = close + run
                } else {
                    index += run
                }
            case UInt8(ascii: "]") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "("):
                let start = index + 2
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: ")")) else {
                    index += 1
                    continue
                }
                let inside = String(decoding: bytes[start..<end], as: UTF8.self)
                // An optional title follows the target after a space: `[text](target "title")`.
                let target = inside.split(separator: " ").first.map(String.init) ?? ""
                links.append(Link(document: document, line: line, target: target))
                line += lines(in: start..<end)
                index = end + 1
            default:
                index += 1
            }
        }
        return links
    }

    /// Where `needle` first occurs in `bytes` at or after `start`.
    private static func firstRange(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) {
                // A longer run of backticks is not this span's close.
                let after = index + needle.count
                if after < bytes.count && bytes[after] == UInt8(ascii: "`") {
                    index = after
                    while index < bytes.count && bytes[index] == UInt8(ascii: "`") { index += 1 }
                    continue
                }
                return index
            }
            index += 1
        }
        return nil
    }
}
