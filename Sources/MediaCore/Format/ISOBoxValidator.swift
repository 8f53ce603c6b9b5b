import Foundation

/// Checks the box structure of an ISO base media file (MP4/MOV/M4A/3GP) before libav reads it.
///
/// libav is lenient: it plays a file whose `mdat` runs past the end, or whose `mdhd` timescale is 0,
/// and quietly produces something. mediad refuses such files with a clear code instead, so a
/// truncated upload is reported as truncated rather than remuxed into a shorter file.
public enum ISOBoxValidator {
    /// Largest `moov` box read into memory for inspection.
    static let maxMovieBoxSize = 256 * 1024 * 1024

    public static func validate(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaError(.ioError, "cannot open \(path)")
        }
        defer { try? handle.close() }
        let fileSize = Int64(try handle.seekToEnd())
        var offset: Int64 = 0
        var sawMovie = false
        while offset < fileSize {
            guard offset + 8 <= fileSize else {
                throw MediaError(.truncatedInput, "the file ends inside a box header at byte \(offset)")
            }
            try handle.seek(toOffset: UInt64(offset))
            let header = [UInt8](try handle.read(upToCount: 16) ?? Data())
            var size = Int64(bigEndian32(header, 0))
            let type = String(decoding: header[4..<8], as: UTF8.self)
            var headerSize: Int64 = 8
            if size == 1 {
                guard header.count >= 16 else {
                    throw MediaError(.truncatedInput, "the '\(type)' box header is cut off")
                }
                size = Int64(bitPattern: (UInt64(bigEndian32(header, 8)) << 32) | UInt64(bigEndian32(header, 12)))
                headerSize = 16
            } else if size == 0 {
                size = fileSize - offset
            }
            guard size >= headerSize else {
                throw MediaError(
                    .invalidInput, "the '\(printable(type))' box at byte \(offset) has an impossible size \(size)")
            }
            // Compared with the bytes left, not as `offset + size`: a 64-bit size near Int64.max overflows.
            guard size <= fileSize - offset else {
                throw MediaError(
                    .truncatedInput,
                    "the '\(printable(type))' box at byte \(offset) claims \(size) bytes but only \(fileSize - offset) are left in the file"
                )
            }
            if type == "moov" {
                sawMovie = true
                guard size <= maxMovieBoxSize else {
                    throw MediaError(
                        .invalidInput, "the 'moov' box is \(size) bytes, over the \(maxMovieBoxSize) limit")
                }
                try handle.seek(toOffset: UInt64(offset + headerSize))
                let body = [UInt8](try handle.read(upToCount: Int(size - headerSize)) ?? Data())
                guard try checkTimescales(in: body[...]) else {
                    throw MediaError(
                        .invalidInput, "the 'moov' box has no 'mvhd' (movie header), so its timing is unknown")
                }
            }
            offset += size
        }
        guard sawMovie else { throw MediaError(.invalidInput, "the file has no 'moov' box (no track descriptions)") }
    }

    /// Walks container boxes inside `moov` and rejects a zero timescale in `mvhd` or any `mdhd`.
    /// Returns whether an `mvhd` was seen at this level.
    @discardableResult
    private static func checkTimescales(in body: ArraySlice<UInt8>) throws -> Bool {
        var sawMovieHeader = false
        var offset = body.startIndex
        while offset + 8 <= body.endIndex {
            let size = Int(bigEndian32(Array(body[offset..<offset + 4]), 0))
            let type = String(decoding: body[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard size >= 8, offset + size <= body.endIndex else {
                throw MediaError(.invalidInput, "the '\(printable(type))' box inside 'moov' has a bad size \(size)")
            }
            let content = body[(offset + 8)..<(offset + size)]
            switch type {
            case "trak", "mdia":
                try checkTimescales(in: content)
            case "mvhd", "mdhd":
                if type == "mvhd" { sawMovieHeader = true }
                let version = content.first ?? 0
                let position = content.startIndex + (version == 1 ? 20 : 12)
                guard position + 4 <= content.endIndex else {
                    throw MediaError(.invalidInput, "the '\(type)' box is too short")
                }
                if bigEndian32(Array(content[position..<position + 4]), 0) == 0 {
                    throw MediaError(
                        .invalidInput, "the '\(type)' box has a timescale of 0, so no timestamp can be trusted")
                }
            default:
                break
            }
            offset += size
        }
        return sawMovieHeader
    }

    private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return bytes[at..<at + 4].reduce(0) { ($0 << 8) | UInt32($1) }
    }

    private static func printable(_ type: String) -> String {
        type.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F } ? type : "?"
    }
}
