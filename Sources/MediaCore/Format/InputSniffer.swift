import Foundation

/// Classifies a file by its first bytes.
///
/// This is deliberately narrower than libav's probing: it recognises only the formats mediad accepts,
/// by their magic numbers, so a playlist or concat list dressed up as `.mp4` is never opened as one.
public enum InputSniffer {
    /// What the first bytes of a file are.
    public enum Verdict: Equatable, Sendable {
        case container(InputContainer)
        case empty
        /// A known format that is not media mediad reads (an image, an archive, a document, a playlist,
        /// text, another audio format); the string names it for the error message.
        case foreign(String)
        /// Unknown binary data: nothing mediad recognises, which raw PCM (no signature) also is.
        case unrecognized
    }

    /// How many leading bytes the sniffer reads.
    public static let headLength = 64 * 1024

    /// Sniffs the file at `path`.
    public static func sniff(path: String) throws -> Verdict {
        try ArrivingFiles.wait(path, for: Int64(headLength))
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaError(.ioError, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: headLength)) ?? Data()
        return sniff(head: [UInt8](head))
    }

    /// Sniffs a file's leading bytes.
    public static func sniff(head: [UInt8]) -> Verdict {
        if head.isEmpty { return .empty }
        if head.count >= 8 {
            let boxType = String(decoding: head[4..<8], as: UTF8.self)
            let isoBoxes: Set<String> = [
                "ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "styp", "sidx", "moof",
            ]
            if isoBoxes.contains(boxType) { return .container(.mp4) }
            // Motion JPEG 2000 opens with JPEG 2000's signature box, then an `ftyp` of its brand.
            if boxType == "jP  ", head.count >= 32, String(decoding: head[16..<32], as: UTF8.self).contains("mjp2") {
                return .container(.mp4)
            }
        }
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .container(.matroska) }
        if head.starts(with: Array("FLV".utf8) + [0x01]) { return .container(.flv) }
        if head.starts(with: [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return .container(.asf) }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WAVE".utf8) {
            return .container(.wav)
        }
        if isTransportStream(head) { return .container(.mpegts) }
        if let adtsStart = ADTSHeader.payloadStart(skippingID3In: head) {
            if adtsStart < head.count - 1, ADTSHeader.isSync(head, at: adtsStart) { return .container(.adts) }
            if adtsStart > 0 { return .foreign("an ID3 tag not followed by ADTS AAC (MP3?)") }
        }
        if isMPEG4Video(head) { return .container(.mpeg4Video) }
        if let kind = AnnexB.sniffCodec(head) { return .container(kind) }
        if let what = ForeignFormat.identify(head) { return .foreign(what) }
        return .unrecognized
    }

    /// Raw MPEG-4 Part 2 video: a visual object sequence (`00 00 01 B0`), a visual object (`B5`) or a
    /// video object (`00`–`1F`) start code first, and a video object layer (`20`–`2F`) soon after, which
    /// every such stream needs before its first picture.
    private static func isMPEG4Video(_ head: [UInt8]) -> Bool {
        guard head.count >= 8, head.starts(with: [0, 0, 1]), [0xB0, 0xB5].contains(head[3]) || head[3] <= 0x1F
        else { return false }
        let window = head.prefix(256)
        return (3..<max(3, window.count - 3)).contains {
            window[$0] == 0 && window[$0 + 1] == 0 && window[$0 + 2] == 1 && (0x20...0x2F).contains(window[$0 + 3])
        }
    }

    private static func isTransportStream(_ head: [UInt8]) -> Bool {
        guard head.count >= 188 * 3 else { return head.count >= 188 && head[0] == 0x47 && head.count % 188 == 0 }
        return head[0] == 0x47 && head[188] == 0x47 && head[376] == 0x47
    }
}
