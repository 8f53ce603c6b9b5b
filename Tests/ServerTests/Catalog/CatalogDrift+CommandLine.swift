import Foundation
import MediaJobs

extension CatalogDrift {
    /// The flags a kind's command has besides the kind's options, with why.
    static let commandFlags: [(flag: String, reason: String)] = [
        ("output", "where the command writes: the server chooses its own paths"),
        ("json", "how the command prints its result: the API always answers JSON"),
        ("help", "argument-parser's own"),
        ("version", "argument-parser's own"),
    ]

    /// A kind's command's long flags, each with its help, as `mediad <kind> --experimental-dump-help` gives
    /// them (argument-parser's description of the command, as JSON).
    static func flags(fromDumpedHelp data: Data) throws -> [String: String] {
        struct Dump: Decodable {
            struct Command: Decodable { var arguments: [Argument] }
            struct Argument: Decodable {
                struct Name: Decodable {
                    var kind: String
                    var name: String
                }
                var names: [Name]?
                var abstract: String?
            }
            var command: Command
        }
        var flags: [String: String] = [:]
        for argument in try JSONDecoder().decode(Dump.self, from: data).command.arguments {
            for name in argument.names ?? [] where name.kind == "long" { flags[name.name] = argument.abstract ?? "" }
        }
        return flags
    }

    /// The command of `kind` takes each of the kind's options as a flag (`sample_rate` as `--sample-rate`)
    /// whose help is the catalog's; and it has no flag that is neither an option, nor an upload part given by
    /// path (`--audio`), nor one of `commandFlags`.
    static func command(_ flags: [String: String], of kind: JobKind) -> [String] {
        var problems: [String] = []
        var expected: Set<String> = Set(commandFlags.map(\.flag))
        for option in kind.optionDescriptions {
            let flag = option.name.replacingOccurrences(of: "_", with: "-")
            expected.insert(flag)
            if option.type == .boolean { expected.insert("no-" + flag) }
            guard let help = flags[flag] else {
                problems.append("mediad \(kind): no --\(flag) for the option \(option.name)")
                continue
            }
            if !help.hasPrefix(option.help) {
                problems.append(
                    "mediad \(kind) --\(flag): the help \"\(help)\" is not the catalog's \"\(option.help)\"")
            }
        }
        for part in kind.inputs where part.name != kind.loneInput?.name { expected.insert(part.name) }
        for flag in Set(flags.keys).subtracting(expected).sorted() {
            problems.append("mediad \(kind): --\(flag) is no option of the kind, no upload part and no commandFlags")
        }
        return problems
    }

    /// docs/cli.md has a section (`## <kind>`) for every kind, which names each of the kind's options: as a
    /// flag (`--sample-rate`, in prose or in an example) or by its API name in code (`sample_rate`).
    static func commandLineDocument(_ text: String) -> [String] {
        var sections: [String: String] = [:]
        for section in text.components(separatedBy: "\n## ").dropFirst() {
            let title = section.prefix { $0 != "\n" }.replacingOccurrences(of: "`", with: "")
            sections[title.trimmingCharacters(in: .whitespaces)] = section
        }
        var problems: [String] = []
        for kind in JobCatalog.kinds {
            guard let section = sections[kind.rawValue] else {
                problems.append("docs/cli.md: no section ## \(kind)")
                continue
            }
            for option in kind.optionDescriptions {
                let flag = "--" + option.name.replacingOccurrences(of: "_", with: "-")
                let named =
                    section.range(of: flag + #"(?![a-z-])"#, options: .regularExpression) != nil
                    || section.contains("`\(option.name)`") || section.contains("`\(option.name)=")
                if !named { problems.append("docs/cli.md ## \(kind): names neither \(flag) nor `\(option.name)`") }
            }
        }
        return problems
    }
}
