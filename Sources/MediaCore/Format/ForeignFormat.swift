/// Formats that are not media mediad reads, told by their first bytes, so that an input which could
/// otherwise pass for raw PCM (which has no signature) is refused with a name for what it is.
///
/// Only signatures long or specific enough that real audio samples would practically never start with
/// them are listed; anything unlisted stays "unknown binary data".
enum ForeignFormat {
    /// A signature: bytes at an offset, and what a file that has them is.
    private struct Signature {
        var offset = 0
        var bytes: [UInt8]
        var name: String

        init(_ bytes: [UInt8], at offset: Int = 0, _ name: String) {
            self.offset = offset
            self.bytes = bytes
            self.name = name
        }

        init(_ text: String, at offset: Int = 0, _ name: String) {
            self.init(Array(text.utf8), at: offset, name)
        }

        func matches(_ head: [UInt8]) -> Bool {
            head.count >= offset + bytes.count && head[offset..<offset + bytes.count].elementsEqual(bytes)
        }
    }

    private static let signatures: [Signature] = [
        Signature([0xFF, 0xD8, 0xFF], "a JPEG image"),
        Signature([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG image"),
        Signature("GIF87a", "a GIF image"), Signature("GIF89a", "a GIF image"),
        Signature("WEBP", at: 8, "a WebP image"), Signature("AVI ", at: 8, "an AVI file"),
        Signature([0x49, 0x49, 0x2A, 0x00], "a TIFF image"), Signature([0x4D, 0x4D, 0x00, 0x2A], "a TIFF image"),
        Signature("%PDF-", "a PDF document"),
        Signature([0x50, 0x4B, 0x03, 0x04], "a ZIP archive (or an Office document)"),
        Signature([0x50, 0x4B, 0x05, 0x06], "an empty ZIP archive"),
        Signature([0x1F, 0x8B, 0x08], "a gzip archive"),
        Signature([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "an xz archive"),
        Signature([0x28, 0xB5, 0x2F, 0xFD], "a Zstandard archive"),
        Signature([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], "a 7z archive"),
        Signature([0x52, 0x61, 0x72, 0x21, 0x1A, 0x07], "a RAR archive"),
        Signature("ustar", at: 257, "a tar archive"),
        Signature([0x7F, 0x45, 0x4C, 0x46], "an ELF executable"),
        Signature("SQLite format 3", "an SQLite database"),
        Signature("OggS", "an Ogg file"), Signature("fLaC", "a FLAC file"),
        Signature("AIFF", at: 8, "an AIFF file"), Signature("AIFC", at: 8, "an AIFF file"),
        Signature("caff", "a Core Audio file"),
        Signature([0x00, 0x00, 0x01, 0xBA], "an MPEG program stream"),
        Signature([0xEF, 0xBB, 0xBF], "text"),
        Signature("#EXTM3U", "an HLS playlist"), Signature("ffconcat", "an ffconcat list"),
    ]

    /// What `head` is, when it is one of the formats above or printable text; nil otherwise.
    static func identify(_ head: [UInt8]) -> String? {
        if let signature = signatures.first(where: { $0.matches(head) }) { return signature.name }
        if head.starts(with: Array("BM".utf8)), isBitmapHeader(head) { return "a BMP image" }
        if head.prefix(512).allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }) {
            return "text"
        }
        return nil
    }

    /// `BM` is too short a signature on its own: a bitmap also has zero reserved bytes and one of the
    /// known DIB header sizes.
    private static func isBitmapHeader(_ head: [UInt8]) -> Bool {
        guard head.count >= 18, head[6..<10].allSatisfy({ $0 == 0 }) else { return false }
        let dibSize = Int(head[14]) | Int(head[15]) << 8 | Int(head[16]) << 16 | Int(head[17]) << 24
        return [12, 40, 52, 56, 108, 124].contains(dibSize)
    }
}
