/// How much of a file's own metadata mediad reports: in job records and the lists and answers built from
/// them, and in `/probe` answers.
///
/// Tags are the file's to choose: one 30 MiB title made every record, list and probe answer carry all of
/// it. Reports keep the first bytes of each tag and the first tags; output files (demux's `info.json`, a
/// remux's own tags) are written from the whole metadata and never capped.
public struct MetadataCaps: Sendable, Equatable {
    /// Bytes of UTF-8 kept of a tag's value; longer values end with `…[truncated, N bytes]`.
    public var valueBytes: Int
    /// Bytes of UTF-8 kept of a tag's name, with the same marker.
    public var keyBytes: Int
    /// Tags kept per container, the first by name; one more entry, `…`, says how many were left out.
    public var tagCount: Int

    public init(valueBytes: Int = 4096, keyBytes: Int = 256, tagCount: Int = 64) {
        self.valueBytes = valueBytes
        self.keyBytes = keyBytes
        self.tagCount = tagCount
    }

    /// The name of the entry that stands for the tags left out.
    public static let omittedTagsKey = "…"

    /// `text` cut to at most `limit` bytes of UTF-8 (never inside a character), marked with its full size.
    public static func truncate(_ text: String, to limit: Int) -> String {
        let size = text.utf8.count
        guard size > limit else { return text }
        var kept = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            used += UTF8.width(scalar)
            guard used <= limit else { break }
            kept.append(scalar)
        }
        return String(kept) + "…[truncated, \(size) bytes]"
    }

    /// At most `tagCount` tags, first by name, with names and values cut, plus the `…` entry when any
    /// were left out.
    public func cap(_ tags: [String: String]) -> [String: String] {
        var capped: [String: String] = [:]
        let names = tags.keys.sorted()
        for name in names.prefix(tagCount) {
            capped[Self.truncate(name, to: keyBytes)] = Self.truncate(tags[name] ?? "", to: valueBytes)
        }
        if names.count > tagCount {
            capped[Self.omittedTagsKey] = "[omitted, \(names.count - tagCount) more tags]"
        }
        return capped
    }
}

extension MediaInfo {
    /// This description as mediad reports it: the container's tags capped (`MetadataCaps.cap`), and the
    /// values taken from tags (the brand, the tracks' languages) cut like any tag value.
    public func reported(_ caps: MetadataCaps = MetadataCaps()) -> MediaInfo {
        var info = self
        info.tags = tags.map(caps.cap)
        info.majorBrand = majorBrand.map { MetadataCaps.truncate($0, to: caps.valueBytes) }
        for index in info.tracks.indices {
            info.tracks[index].language = info.tracks[index].language.map {
                MetadataCaps.truncate($0, to: caps.valueBytes)
            }
        }
        return info
    }
}
