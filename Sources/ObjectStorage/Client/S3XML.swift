import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// S3's XML answers (errors, `InitiateMultipartUploadResult`, `ListMultipartUploadsResult` …) read into a
/// small tree with Foundation's `XMLParser`, an XML parser proper: entities, CDATA and namespaces are its
/// business, not a pattern's.
struct S3XML: Sendable, Equatable {
    /// The element's local name (S3's default namespace is not part of it).
    var name: String
    /// The text directly inside the element, entities resolved.
    var text: String
    var children: [S3XML]

    /// The first child named `name`.
    func child(_ name: String) -> S3XML? { children.first { $0.name == name } }

    /// Every child named `name`, in order.
    func children(_ name: String) -> [S3XML] { children.filter { $0.name == name } }

    /// The text of the first child named `name`.
    func text(of name: String) -> String? { child(name)?.text }

    struct Malformed: Error {}

    /// The document's root element; `Malformed` when `bytes` is not well-formed XML.
    ///
    /// Each call has a parser of its own, and Foundation sets libxml2 up once (`xmlInitParser` behind a
    /// `dispatch_once` in `XMLParser`'s initialiser), so requests finishing on many threads parse at once.
    static func parse(_ bytes: [UInt8]) throws -> S3XML {
        let builder = Builder()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else { throw Malformed() }
        return root
    }

    /// `text` with XML's five special characters escaped, for a request document.
    static func escaped(_ text: String) -> String {
        text.reduce(into: "") { escaped, character in
            if let entity = entities[character] { escaped += entity } else { escaped.append(character) }
        }
    }

    /// The entity that stands for each of XML's special characters.
    private static let entities: [Character: String] = [
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&apos;",
    ]

    /// Builds the tree from the parser's callbacks (used on one thread, within `parse`).
    private final class Builder: NSObject, XMLParserDelegate {
        var open: [S3XML] = []
        var root: S3XML?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            open.append(S3XML(name: elementName, text: "", children: []))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if !open.isEmpty { open[open.count - 1].text += string }
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            if !open.isEmpty { open[open.count - 1].text += String(decoding: CDATABlock, as: UTF8.self) }
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            guard let done = open.popLast() else { return }
            if open.isEmpty { root = done } else { open[open.count - 1].children.append(done) }
        }
    }
}
