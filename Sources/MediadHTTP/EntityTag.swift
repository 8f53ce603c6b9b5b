/// An entity tag (RFC 9110 §8.8.3): an opaque string in double quotes, weak when written `W/"…"`.
package struct EntityTag: Equatable, Sendable {
    /// The characters between the quotes.
    package var opaque: String
    package var isWeak: Bool

    package init(_ opaque: String, weak: Bool = false) {
        self.opaque = opaque
        isWeak = weak
    }

    /// As a field value: `"…"` or `W/"…"`.
    package var headerValue: String { (isWeak ? "W/" : "") + "\"\(opaque)\"" }

    /// Strong comparison (RFC 9110 §8.8.3.2), for `If-Match` and `If-Range`: both strong, same opaque tag.
    package func matchesStrongly(_ other: EntityTag) -> Bool { !isWeak && !other.isWeak && opaque == other.opaque }

    /// Weak comparison, for `If-None-Match`: the same opaque tag, whether either is weak or not.
    package func matchesWeakly(_ other: EntityTag) -> Bool { opaque == other.opaque }

    /// One entity tag that is the whole of `text` (surrounding spaces aside), or nil.
    package init?(parsing text: Substring) {
        var rest = text.drop { $0 == " " || $0 == "\t" }
        while let last = rest.last, last == " " || last == "\t" { rest.removeLast() }
        let weak = rest.hasPrefix("W/")
        if weak { rest = rest.dropFirst(2) }
        guard rest.count >= 2, rest.first == "\"", rest.last == "\"" else { return nil }
        let opaque = rest.dropFirst().dropLast()
        // etagc: any visible character or obs-text but the double quote.
        guard opaque.unicodeScalars.allSatisfy({ $0 != "\"" && $0.value > 0x20 && $0.value != 0x7F }) else {
            return nil
        }
        self.init(String(opaque), weak: weak)
    }
}

/// The value of `If-Match` or `If-None-Match`: `*`, or a list of entity tags.
package enum EntityTagCondition: Equatable, Sendable {
    case any
    /// The tags listed; members that are not entity tags are left out (they match nothing).
    case tags([EntityTag])

    /// The condition of all `values` of one field (a list may be split over several lines); nil when absent.
    /// Tags are read one by one, since an opaque tag may itself hold a comma.
    package init?(_ values: [String]) {
        guard !values.isEmpty else { return nil }
        let text = Substring(values.joined(separator: ","))
        if text.split(separator: ",").map({ $0.filter { $0 != " " && $0 != "\t" } }).filter({ !$0.isEmpty }) == ["*"] {
            self = .any
            return
        }
        var tags: [EntityTag] = []
        var rest = text[...]
        while let quote = rest.firstIndex(of: "\"") {
            let prefix = rest[..<quote]
            let weak = prefix.hasSuffix("W/")
            guard let close = rest[rest.index(after: quote)...].firstIndex(of: "\"") else { break }
            if let tag = EntityTag(parsing: rest[quote...close]) {
                tags.append(EntityTag(tag.opaque, weak: weak))
            }
            rest = rest[rest.index(after: close)...]
        }
        self = .tags(tags)
    }
}
