import Foundation
import TestSupport
import Testing

/// openapi.yaml as the JSON it holds (PyYAML reads it: Foundation reads no YAML), with the walks the catalog
/// checks need: every string and every list of strings with its JSON pointer, and the shared parameters.
struct OpenAPIDocument {
    var root: [String: Any]

    /// The document at `path`: the repository's openapi.yaml unless told.
    static func load(_ path: String = OpenAPISpecTests.spec.path) throws -> OpenAPIDocument {
        let script =
            "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1], encoding='utf-8')), sys.stdout)"
        let output = try Command.run("python3", ["-c", script, path])
        return OpenAPIDocument(
            root: try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any]))
    }

    /// Every string of the document (descriptions, summaries, example values) with its pointer.
    var strings: [(pointer: String, text: String)] {
        var found: [(String, String)] = []
        Self.walk(root, "") { pointer, value in
            if let text = value as? String { found.append((pointer, text)) }
        }
        return found
    }

    /// Every list whose items are all strings (enums, `x-kinds`, example lists) with its pointer.
    var stringLists: [(pointer: String, items: [String])] {
        var found: [(String, [String])] = []
        Self.walk(root, "") { pointer, value in
            if let list = value as? [Any], !list.isEmpty, let items = list as? [String] {
                found.append((pointer, items))
            }
        }
        return found
    }

    /// `components/parameters`, by their key there.
    var parameters: [String: [String: Any]] {
        let components = root["components"] as? [String: Any]
        return components?["parameters"] as? [String: [String: Any]] ?? [:]
    }

    /// Every parameter object (shared or an operation's own) with its pointer.
    var allParameters: [(pointer: String, parameter: [String: Any])] {
        var found: [(String, [String: Any])] = []
        Self.walk(root, "") { pointer, value in
            guard let object = value as? [String: Any], object["name"] is String, object["in"] is String else { return }
            found.append((pointer, object))
        }
        return found
    }

    /// The object at a local `$ref` such as `#/components/schemas/JobKind`, or nil.
    func resolve(_ reference: String) -> [String: Any]? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: Any = root
        for token in reference.dropFirst(2).split(separator: "/") {
            guard let object = node as? [String: Any], let next = object[String(token)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    /// The markdown bold (`**…**`) of `text`, joined: where a parameter's description names its kinds.
    static func bold(in text: String) -> String {
        let expression = try! NSRegularExpression(pattern: #"\*\*(.+?)\*\*"#)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }.joined(separator: ", ")
    }

    private static func walk(_ node: Any, _ pointer: String, _ visit: (String, Any) -> Void) {
        visit(pointer, node)
        if let object = node as? [String: Any] {
            for (key, value) in object {
                let token = key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
                walk(value, pointer + "/" + token, visit)
            }
        } else if let list = node as? [Any] {
            for (index, value) in list.enumerated() { walk(value, pointer + "/\(index)", visit) }
        }
    }
}
