/// The 512-byte header blocks of one file in a POSIX (ustar) tar archive.
///
/// A name longer than ustar's 100-byte `name` field is split at a `/` into `prefix` (up to 155 bytes) and
/// `name`; one that cannot be split so, or a size past ustar's 11 octal digits (8 GiB), goes first in a PAX
/// extended header (`x`) with `path` and `size` records, as POSIX.1-2001 defines it, which GNU tar, bsdtar
/// and Python's tarfile read.
package struct TarHeader {
    package let name: String
    package let size: Int64
    /// Seconds since 1970.
    package let modified: Int64

    package init(name: String, size: Int64, modified: Int64) {
        self.name = name
        self.size = size
        self.modified = modified
    }

    package static let blockSize = 512

    /// The header blocks: a PAX header and its records when the name or size needs one, then the ustar block.
    package var blocks: [UInt8] {
        let split = Self.split(name)
        let sizeFits = size <= Self.largestOctalSize
        var records: [UInt8] = []
        if split == nil { records += Self.paxRecord(key: "path", value: name) }
        if !sizeFits { records += Self.paxRecord(key: "size", value: String(size)) }
        let (prefix, shortName) = split ?? ("", String(decoding: name.utf8.suffix(100), as: UTF8.self))
        let entry = Self.ustarBlock(
            name: shortName, prefix: prefix, size: sizeFits ? size : 0, modified: modified, type: UInt8(ascii: "0"))
        guard !records.isEmpty else { return entry }
        let pax = Self.ustarBlock(
            name: "PaxHeader", prefix: "", size: Int64(records.count), modified: modified, type: UInt8(ascii: "x"))
        return pax + Self.padded(records) + entry
    }

    /// The largest size 11 octal digits hold.
    private static let largestOctalSize: Int64 = 0o77777777777

    /// Zero bytes that fill a file of `size` bytes up to a whole block.
    package static func padding(after size: Int64) -> Int {
        Int((Int64(blockSize) - size % Int64(blockSize)) % Int64(blockSize))
    }

    /// The two zero blocks that end an archive.
    package static var end: [UInt8] { [UInt8](repeating: 0, count: 2 * blockSize) }

    /// `(prefix, name)` fitting ustar's fields, or nil when the name needs a PAX header.
    private static func split(_ path: String) -> (String, String)? {
        let bytes = Array(path.utf8)
        if bytes.count <= 100 { return ("", path) }
        for index in bytes.indices where bytes[index] == UInt8(ascii: "/") {
            let prefix = bytes[..<index]
            let rest = bytes[(index + 1)...]
            if prefix.count <= 155, rest.count <= 100, !rest.isEmpty {
                return (String(decoding: prefix, as: UTF8.self), String(decoding: rest, as: UTF8.self))
            }
        }
        return nil
    }

    /// `"<length> <key>=<value>\n"`, where the length counts the whole record, its own digits included.
    private static func paxRecord(key: String, value: String) -> [UInt8] {
        let body = " \(key)=\(value)\n"
        var length = body.utf8.count + 1
        while String(length).count + body.utf8.count != length { length += 1 }
        return Array((String(length) + body).utf8)
    }

    private static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: padding(after: Int64(bytes.count)))
    }

    private static func ustarBlock(name: String, prefix: String, size: Int64, modified: Int64, type: UInt8) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ text: String, at offset: Int, width: Int) {
            for (index, byte) in text.utf8.prefix(width).enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: Int64, at offset: Int, width: Int) {
            let digits = String(value, radix: 8)
            put(String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits, at: offset, width: width - 1)
        }
        put(name, at: 0, width: 100)
        octal(0o644, at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        octal(size, at: 124, width: 12)
        octal(modified, at: 136, width: 12)
        block[156] = type
        put("ustar", at: 257, width: 6)
        put("00", at: 263, width: 2)
        put(prefix, at: 345, width: 155)
        for index in 148..<156 { block[index] = UInt8(ascii: " ") }
        let checksum = block.reduce(0) { $0 + Int64($1) }
        octal(checksum, at: 148, width: 7)
        block[154] = 0
        block[155] = UInt8(ascii: " ")
        return block
    }
}
