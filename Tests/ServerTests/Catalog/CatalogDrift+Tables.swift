import Foundation
import MediaJobs

extension CatalogDrift {
    /// Every Markdown table of `text` whose first column is `kind` (openapi.yaml's table of `POST /jobs/{kind}`,
    /// the README's) has a row for each kind of the catalog and for nothing else (`probe`, a route, aside), and
    /// where it has an `options` column, names in it (in `code`) exactly the options the kind takes.
    static func kindTables(in text: String, at place: String) -> [String] {
        var problems: [String] = []
        for table in tables(in: text) {
            guard let header = table.first, header.first == "kind" else { continue }
            // `options (default)`; the README's `options and details` holds links, not options.
            let optionsColumn = header.firstIndex { $0 == "options" || $0.hasPrefix("options (") }
            var kinds: Set<String> = []
            for row in table.dropFirst() {
                let name = row[0].replacingOccurrences(of: "`", with: "")
                if name == "probe" { continue }
                guard let kind = JobKind(rawValue: name) else {
                    problems.append("\(place): the table of kinds has a row \(name), which is no kind")
                    continue
                }
                kinds.insert(name)
                guard let column = optionsColumn, column < row.count else { continue }
                let named = codeSpans(in: row[column]).filter {
                    $0.range(of: #"^[a-z][a-z0-9_]*$"#, options: .regularExpression) != nil
                }
                let taken = Set(kind.optionDescriptions.map(\.name))
                if Set(named) != taken {
                    problems.append(
                        "\(place): the \(name) row names the options \(Set(named).sorted()), "
                            + "the kind takes \(taken.sorted())")
                }
            }
            if kinds != KindMentions.all {
                problems.append(
                    "\(place): the table of kinds has no row for \(KindMentions.all.subtracting(kinds).sorted())")
            }
        }
        return problems
    }

    /// The tables of Markdown `text`: for each, its rows (the header first, the `---` row left out), each row
    /// its cells, trimmed.
    static func tables(in text: String) -> [[[String]]] {
        var tables: [[[String]]] = []
        var current: [[String]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("|") else {
                if !current.isEmpty { tables.append(current) }
                current = []
                continue
            }
            let cells = line.dropFirst().split(separator: "|", omittingEmptySubsequences: false).dropLast(
                line.hasSuffix("|") ? 1 : 0
            ).map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.allSatisfy({ $0.range(of: #"^:?-+:?$"#, options: .regularExpression) != nil }) { continue }
            current.append(cells)
        }
        if !current.isEmpty { tables.append(current) }
        return tables
    }

    /// The contents of the code spans (`…`) of `text`.
    static func codeSpans(in text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }
}
