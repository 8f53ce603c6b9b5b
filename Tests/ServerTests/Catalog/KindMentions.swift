import Foundation
import MediaJobs

/// How documents name job kinds, read so that the catalog can judge them: lists of kinds in prose ("an
/// encode, decode or mux job"), the kinds a phrase means ("every kind but mux"), and the sets of kinds the
/// catalog gives (every kind, the kinds that take an option, the kinds with an upload part).
enum KindMentions {
    /// The catalog's kind names.
    static var all: Set<String> { Set(JobCatalog.names) }

    /// The kinds that take option `name`.
    static func taking(_ name: String) -> Set<String> {
        Set(JobCatalog.kinds.filter { $0.optionDescriptions.contains { $0.name == name } }.map(\.rawValue))
    }

    /// The kinds with the upload part `name`.
    static func having(part name: String) -> Set<String> {
        Set(JobCatalog.kinds.filter { $0.inputs.contains { $0.name == name } }.map(\.rawValue))
    }

    /// Every option name of the catalog.
    static var optionNames: Set<String> { Set(JobCatalog.kinds.flatMap(\.optionDescriptions).map(\.name)) }

    /// A run of kind names in prose, with the sentence it stands in.
    struct Enumeration: CustomStringConvertible {
        /// The run as written: "**encode, decode, demux, remux**".
        var text: String
        /// The kinds it names (`probe`, a route and not a kind, left out).
        var kinds: Set<String>
        var sentence: String

        var description: String { "\"\(text)\" in \"\(sentence.prefix(300))\"" }
    }

    /// The kind names as one alternation, longest first; `probe` too, which prose lists beside the kinds.
    private static let names = (JobCatalog.names + ["probe"]).sorted { $0.count > $1.count }
        .joined(separator: "|")

    /// A kind name, possibly in `**bold**` or `code`, then more joined by commas, `and` or `or`.
    private static let run: NSRegularExpression = {
        let item = #"[*`]*\b(?:"# + names + #")\b[*`]*"#
        let separator = #"(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)"#
        return try! NSRegularExpression(pattern: item + "(?:" + separator + item + ")+", options: [.caseInsensitive])
    }()

    private static let name = try! NSRegularExpression(
        pattern: #"\b(?:"# + names + #")\b"#, options: [.caseInsensitive])

    /// Every run of three or more kind names in `text` (whitespace, line breaks included, read as one space):
    /// a run of fewer is a mention of those kinds, not a list that could be missing one.
    static func enumerations(in text: String) -> [Enumeration] {
        let text = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return matches(of: run, in: text).compactMap { range in
            let found = String(text[range])
            let kinds = Set(matches(of: name, in: found).map { found[$0].lowercased() }).subtracting(["probe"])
            guard kinds.count >= 3 else { return nil }
            return Enumeration(text: found, kinds: kinds, sentence: sentence(around: range, in: text))
        }
    }

    /// The kinds `text` means: every kind for "all kinds", "every kind" or "any kind"; every kind but those
    /// it names after "but" for "every kind but mux"; else the kinds it names, or nil when it names none.
    static func meant(by text: String) -> Set<String>? {
        let lowered = text.lowercased()
        if let but = lowered.range(
            of: #"\b(?:all kinds|every kind|any kind) but\b[^.;:()]*"#, options: .regularExpression)
        {
            return all.subtracting(named(in: String(lowered[but])))
        }
        if lowered.range(of: #"\b(?:all kinds|every kind|any kind)\b"#, options: .regularExpression) != nil {
            return all
        }
        let kinds = named(in: lowered)
        return kinds.isEmpty ? nil : kinds
    }

    /// The kinds named in `text`.
    static func named(in text: String) -> Set<String> {
        Set(matches(of: name, in: text).map { text[$0].lowercased() }).subtracting(["probe"])
    }

    /// The sentence around `range`: from the end of the previous one (". ") to the end of its own.
    private static func sentence(around range: Range<String.Index>, in text: String) -> String {
        let start = text[..<range.lowerBound].range(of: ". ", options: .backwards)?.upperBound ?? text.startIndex
        let end = text[range.upperBound...].range(of: ". ")?.lowerBound ?? text.endIndex
        return String(text[start..<end])
    }

    private static func matches(of expression: NSRegularExpression, in text: String) -> [Range<String.Index>] {
        expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text)
        }
    }
}
