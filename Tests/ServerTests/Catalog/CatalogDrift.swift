import Foundation
import MediaJobs

/// Where openapi.yaml, the documents and the command line say something the catalog (`JobCatalog`) decides —
/// which kinds there are, which options and upload parts each takes — and the places where they do not say
/// what it says. Each check returns its problems, one line each: none when the place follows the catalog.
enum CatalogDrift {
    /// Lists of kinds that are deliberately not every kind, with why: the text of the run, where it stands
    /// (a document, or `openapi.yaml`), and the reason.
    static let partialLists: [(text: String, document: String, reason: String)] = [
        (
            "remux, mux and encode", "docs/architecture.md",
            "the kinds whose outputs the conformance tests read with parsers that share no code with libav"
        ),
        ("remux, mux, encode, transcode", "docs/fftools-defaults.md", "the kinds that write through OutputFile"),
        (
            "transcode, thumbnails and encode", "docs/media.md",
            "the kinds that decode their input and take no `damaged` option, so refuse damaged input"
        ),
    ]

    /// Every `kind` parameter lists the catalog's kinds in its order, and so does every other list of kind
    /// names (`JobKind`, the index's example) but an option's `x-kinds`.
    static func kindLists(in document: OpenAPIDocument) -> [String] {
        var problems: [String] = []
        for (pointer, parameter) in document.allParameters where parameter["name"] as? String == "kind" {
            var schema = parameter["schema"] as? [String: Any] ?? [:]
            if let reference = schema["$ref"] as? String { schema = document.resolve(reference) ?? [:] }
            let values = schema["enum"] as? [String] ?? []
            if values != JobCatalog.names { problems.append("\(pointer): the kind parameter takes \(values)") }
        }
        for (pointer, items) in document.stringLists where !pointer.hasSuffix("/x-kinds") {
            guard items.count >= 3, Set(items).isSubset(of: KindMentions.all), items != JobCatalog.names else {
                continue
            }
            problems.append("\(pointer): [\(items.joined(separator: ", "))], not the catalog's \(JobCatalog.names)")
        }
        return problems
    }

    /// Each option parameter (one with `x-kinds`) lists only catalog kinds, and its description names in bold
    /// the kinds it lists ("**remux**, **transcode**:", or "**all kinds**").
    static func optionParameters(in document: OpenAPIDocument) -> [String] {
        var problems: [String] = []
        for (key, parameter) in document.parameters.sorted(by: { $0.key < $1.key }) {
            guard let listed = parameter["x-kinds"] as? [String] else { continue }
            if let unknown = Set(listed).subtracting(KindMentions.all).sorted().first {
                problems.append("\(key): x-kinds names \(unknown), which is no kind")
            }
            let bold = OpenAPIDocument.bold(in: parameter["description"] as? String ?? "")
            guard let meant = KindMentions.meant(by: bold) else {
                problems.append("\(key): the description names none of its kinds in bold")
                continue
            }
            if meant != Set(listed) {
                problems.append("\(key): the description names \(meant.sorted()) in bold, x-kinds \(listed.sorted())")
            }
        }
        return problems
    }

    /// Each upload part of a kind has its query parameters (`input_url` or `<part>_url`; `upload` or
    /// `<part>_upload`) and a property of the multipart form (`JobUpload`), each naming exactly the kinds with
    /// that part: in bold for a parameter, in words for the property.
    static func inputParameters(in document: OpenAPIDocument) -> [String] {
        var fields: [String: Set<String>] = [:]
        for kind in JobCatalog.kinds {
            for part in kind.inputs {
                fields[part.storedName + "_url", default: []].insert(kind.rawValue)
                fields[part.name == kind.loneInput?.name ? "upload" : part.name + "_upload", default: []]
                    .insert(kind.rawValue)
            }
        }
        var problems: [String] = []
        let parameters = document.parameters.values.filter { $0["in"] as? String == "query" }
        for (field, kinds) in fields.sorted(by: { $0.key < $1.key }) {
            guard let parameter = parameters.first(where: { $0["name"] as? String == field }) else {
                problems.append("\(field): no query parameter describes it")
                continue
            }
            let meant = KindMentions.meant(by: OpenAPIDocument.bold(in: parameter["description"] as? String ?? ""))
            if meant != kinds {
                problems.append("\(field): names \(meant?.sorted() ?? []) in bold, not \(kinds.sorted())")
            }
        }
        let form = document.resolve("#/components/schemas/JobUpload")?["properties"] as? [String: [String: Any]] ?? [:]
        for part in Set(JobCatalog.kinds.flatMap(\.inputs).map(\.name)).sorted() {
            guard let property = form[part] else {
                problems.append("JobUpload: no property for the part \(part)")
                continue
            }
            let kinds = KindMentions.having(part: part)
            let meant = KindMentions.meant(by: property["description"] as? String ?? "")
            if meant != kinds {
                problems.append("JobUpload.\(part): names \(meant?.sorted() ?? []), not \(kinds.sorted())")
            }
        }
        return problems
    }

    /// Every list of three or more kinds in `text` lists them all, or exactly the kinds that take an option the
    /// sentence names (`damaged`) or the text describes (`subject`, a parameter's), or is one of `partialLists`.
    static func prose(_ text: String, in document: String, subject: String? = nil) -> [String] {
        KindMentions.enumerations(in: text).compactMap { run in
            if run.kinds == KindMentions.all { return nil }
            let options = KindMentions.optionNames.filter { name in
                name == subject || run.sentence.contains("`\(name)`") || run.sentence.contains("`\(name)=")
            }
            if options.contains(where: { KindMentions.taking($0) == run.kinds }) { return nil }
            if partialLists.contains(where: { $0.document == document && run.text.contains($0.text) }) { return nil }
            let missing = KindMentions.all.subtracting(run.kinds).sorted().joined(separator: ", ")
            return "\(document): \(run) lists some kinds (not \(missing)) and is no list of partialLists"
        }
    }
}
