import Foundation

/// A Dockerfile read the way `docker build` reads it, enough to check what matters: its stages, and each
/// stage's instructions with their arguments (line continuations joined, comments dropped).
struct DockerfileModel {
    struct Instruction {
        var keyword: String
        var arguments: String
    }

    struct Stage {
        var image: String
        var name: String?
        var instructions: [Instruction]

        func all(_ keyword: String) -> [String] { instructions.filter { $0.keyword == keyword }.map(\.arguments) }

        /// The packages every `apt-get install` of this stage names (options dropped).
        var aptPackages: [String] {
            all("RUN").flatMap { command in
                command.components(separatedBy: "&&").flatMap { step -> [String] in
                    let words = step.split(whereSeparator: \.isWhitespace).map(String.init)
                    guard let install = words.firstIndex(of: "install"), words[..<install].contains("apt-get") else {
                        return []
                    }
                    return words[(install + 1)...].filter { !$0.hasPrefix("-") }
                }
            }
        }
    }

    var stages: [Stage] = []

    init(contentsOf path: String) throws {
        var logical: [String] = []
        var pending = ""
        for line in try String(contentsOfFile: path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") || (trimmed.isEmpty && pending.isEmpty) { continue }
            if trimmed.hasSuffix("\\") {
                pending += trimmed.dropLast() + " "
            } else {
                logical.append(pending + trimmed)
                pending = ""
            }
        }
        for line in logical where !line.isEmpty {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            let keyword = parts[0].uppercased()
            let arguments = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            if keyword == "FROM" {
                let words = arguments.split(separator: " ").map(String.init)
                let name = words.count == 3 && words[1].uppercased() == "AS" ? words[2] : nil
                stages.append(Stage(image: words[0], name: name, instructions: []))
            } else if !stages.isEmpty {
                stages[stages.count - 1].instructions.append(Instruction(keyword: keyword, arguments: arguments))
            }
        }
    }

    /// A JSON-array (exec form) argument such as `["serve", "--host", "0.0.0.0"]`, or nil for shell form.
    static func execForm(_ arguments: String) -> [String]? {
        guard arguments.hasPrefix("[") else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(arguments.utf8))) as? [String]
    }
}
