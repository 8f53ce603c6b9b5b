import Foundation

/// Checks the box structure of an ISO base media file (MP4/MOV/M4A/3GP) before libav reads it.
///
/// libav is lenient: it plays a file whose `mdat` runs past the end, or whose samples lie past it, or
/// whose `mdhd` timescale is 0, and quietly produces something. mediad refuses such files with a clear
/// code instead, so a truncated upload is reported as truncated rather than remuxed into a shorter file.
/// It also refuses, before libav allocates for them, more tracks than the input policy allows and
/// sample tables whose entry counts do not fit in their boxes, and it walks nested boxes without
/// recursion and to a bounded depth (`ISOBoxWalker`).
public enum ISOBoxValidator {
    /// Largest `moov`, `moof` or `mfra` box read into memory for inspection.
    static let maxMovieBoxSize = 256 * 1024 * 1024

    /// Top-level boxes whose content is read and checked.
    static let inspectedTypes: Set<String> = ["moov", "moof", "mfra"]

    /// Throws `truncated_input` or `invalid_input` for a file libav should not be given; `maxTracks` is
    /// the input policy's stream limit. Returns whether the file has movie fragments (a top-level `moof`),
    /// which the walk sees anyway.
    @discardableResult
    public static func validate(path: String, maxTracks: Int = 64) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaError(.ioError, "cannot open \(path)")
        }
        defer { try? handle.close() }
        let fileSize = Int64(try handle.seekToEnd())
        var offset: Int64 = 0
        var movie: ISOMovieChecker.Summary? = nil
        var fragmented = false
        while offset < fileSize {
            guard offset + 8 <= fileSize else {
                throw MediaError(.truncatedInput, "the file ends inside a box header at byte \(offset)")
            }
            try handle.seek(toOffset: UInt64(offset))
            let header = [UInt8](try handle.read(upToCount: 16) ?? Data())
            var size = Int64(bigEndian32(header, 0))
            let type = ISOBoxWalker.printable(header[4..<8])
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
                throw MediaError(.invalidInput, "the '\(type)' box at byte \(offset) has an impossible size \(size)")
            }
            // Compared with the bytes left, not as `offset + size`: a 64-bit size near Int64.max overflows.
            guard size <= fileSize - offset else {
                throw MediaError(
                    .truncatedInput,
                    "the '\(type)' box at byte \(offset) claims \(size) bytes but only \(fileSize - offset) are left in the file"
                )
            }
            if type == "moof" { fragmented = true }
            if inspectedTypes.contains(type) {
                guard size <= maxMovieBoxSize else {
                    throw MediaError(
                        .invalidInput, "the '\(type)' box is \(size) bytes, over the \(maxMovieBoxSize) limit")
                }
                try handle.seek(toOffset: UInt64(offset))
                let bytes = [UInt8](try handle.read(upToCount: Int(size)) ?? Data())
                guard bytes.count == Int(size) else {
                    throw MediaError(.truncatedInput, "the file got shorter while its '\(type)' box was read")
                }
                let walker = ISOBoxWalker(bytes: bytes, fileOffset: offset)
                if type == "moov" {
                    movie = try ISOMovieChecker(
                        walker: walker, contentStart: Int(headerSize), fileSize: fileSize, maxTracks: maxTracks
                    ).check()
                } else {
                    try ISOFragmentChecker(
                        walker: walker, contentStart: Int(headerSize), fileSize: fileSize,
                        defaultSampleSizes: movie?.defaultSampleSizes ?? [:]
                    ).check()
                }
            }
            offset += size
        }
        guard movie != nil else {
            throw MediaError(.invalidInput, "the file has no 'moov' box (no track descriptions)")
        }
        return fragmented
    }

    private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return bytes[at..<at + 4].reduce(0) { ($0 << 8) | UInt32($1) }
    }
}
