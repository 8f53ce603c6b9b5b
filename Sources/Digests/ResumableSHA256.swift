import COpenSSL

/// A SHA-256 digest that can be stopped at a 64-byte block boundary and taken up again elsewhere: its
/// `Midstate` (the eight chaining words and the byte count) is what a tus upload whose requests land on
/// different replicas keeps in the database with each stored part, so the upload's SHA-256 is computed
/// once, as its bytes pass, without reading the object back.
///
/// One owner, one thread at a time; the context is a value, so a copy is a snapshot.
public struct ResumableSHA256: Sendable {
    /// The digest's state after a whole number of 64-byte blocks.
    public struct Midstate: Sendable, Equatable, CustomStringConvertible {
        /// The bytes digested so far, a multiple of 64.
        public let count: Int64
        /// SHA-256's chaining words after them.
        public let words: [UInt32]

        /// `<count>:<64 hex digits>`, as the database keeps it.
        public var description: String {
            "\(count):"
                + words.map { word in
                    let hex = String(word, radix: 16)
                    return String(repeating: "0", count: 8 - hex.count) + hex
                }.joined()
        }

        /// The midstate `description` wrote; nil for any other text.
        public init?(_ text: String) {
            let fields = text.split(separator: ":")
            guard fields.count == 2, let count = Int64(fields[0]), count >= 0, count % 64 == 0,
                fields[1].count == 64, fields[1].allSatisfy(\.isHexDigit)
            else { return nil }
            let hex = Array(fields[1])
            self.count = count
            words = stride(from: 0, to: 64, by: 8).compactMap { UInt32(String(hex[$0..<($0 + 8)]), radix: 16) }
        }

        init(count: Int64, words: [UInt32]) {
            self.count = count
            self.words = words
        }
    }

    private var context = SHA256_CTX()
    /// Bytes digested so far.
    public private(set) var count: Int64 = 0

    /// A digest of nothing yet.
    public init() {
        SHA256_Init(&context)
    }

    /// The digest taken up from `midstate`.
    public init(resuming midstate: Midstate) {
        SHA256_Init(&context)
        let words = midstate.words
        context.h = (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7])
        let bits = UInt64(midstate.count) << 3
        context.Nl = UInt32(truncatingIfNeeded: bits)
        context.Nh = UInt32(truncatingIfNeeded: bits >> 32)
        count = midstate.count
    }

    /// Adds bytes to the digest.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        SHA256_Update(&context, base, bytes.count)
        count += Int64(bytes.count)
    }

    /// The state to resume from; nil unless the bytes digested are a whole number of blocks.
    public var midstate: Midstate? {
        guard count % 64 == 0 else { return nil }
        let h = context.h
        return Midstate(count: count, words: [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7])
    }

    /// The digest of everything added, as 64 lowercase hex digits (this copy is spent; others go on).
    public mutating func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        SHA256_Final(&digest, &context)
        return Hex.lowercase(digest)
    }
}
