import Foundation

/// Checks the box structure of an ISO base media file (MP4/MOV/M4A/3GP) before libav reads it.
///
/// libav is lenient: it plays a file whose `mdat` runs past the end, or whose samples lie past it, or
/// whose `mdhd` timescale is 0, and quietly produces something. mediad says so: under `damaged=refuse`
/// such a file fails with a clear code, under `damaged=salvage` (the default of the kinds that read media)
/// each finding is recorded for the job's warnings and libav reads what is there, as the ffmpeg CLI does.
/// Either way it refuses, before libav allocates for them, more tracks than the input policy allows and
/// sample tables whose entry counts the rest of the file could not hold, and it walks nested boxes
/// without recursion and to a bounded depth (`ISOBoxWalker`).
public enum ISOBoxValidator {
    /// Largest `moov`, `moof` or `mfra` box read into memory for inspection.
    static let maxMovieBoxSize = 256 * 1024 * 1024

    /// Top-level boxes whose content is read and checked.
    static let inspectedTypes: Set<String> = ["moov", "moof", "mfra"]

    /// What the inspection found: whether the file has movie fragments (a top-level `moof`), and what is
    /// cut or malformed in it (always empty under `refuse`, which throws instead).
    public struct Inspection: Sendable {
        public var fragmented: Bool
        public var damage: InputDamage
    }

    /// Throws `truncated_input` or `invalid_input` for a file libav should not be given (under `refuse`,
    /// for any damage; under `salvage`, only for what libav could not read either, or must not be given);
    /// `maxTracks` is the input policy's stream limit.
    @discardableResult
    public static func validate(path: String, maxTracks: Int = 1000, damaged: DamagedInput = .refuse) throws
        -> Inspection
    {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaError(.ioError, "cannot open \(path)")
        }
        defer { try? handle.close() }
        let recorder = DamageRecorder(policy: damaged)
        // A file still arriving is checked as the whole file will be: each read waits for its bytes.
        let fileSize = try ArrivingFiles.finalSize(of: path) ?? Int64(handle.seekToEnd())
        var offset: Int64 = 0
        var movie: ISOMovieChecker.Summary? = nil
        var fragmented = false
        boxes: while offset < fileSize {
            guard offset + 8 <= fileSize else {
                try recorder.found(
                    MediaError(
                        .truncatedInput,
                        "the file ends inside a box header at byte \(offset) (its last \(fileSize - offset) bytes)"))
                break
            }
            try ArrivingFiles.wait(path, for: offset + 16)
            try handle.seek(toOffset: UInt64(offset))
            let header = [UInt8](try handle.read(upToCount: 16) ?? Data())
            var size = Int64(bigEndian32(header, 0))
            let type = ISOBoxWalker.printable(header[4..<8])
            var headerSize: Int64 = 8
            if size == 1 {
                guard header.count >= 16 else {
                    try recorder.found(
                        MediaError(.truncatedInput, "the '\(type)' box header at byte \(offset) is cut off"))
                    break
                }
                size = Int64(bitPattern: (UInt64(bigEndian32(header, 8)) << 32) | UInt64(bigEndian32(header, 12)))
                headerSize = 16
            } else if size == 0 {
                size = fileSize - offset
            }
            guard size >= headerSize else {
                // libav stops reading the file's boxes there.
                guard movie != nil else {
                    throw MediaError(
                        .invalidInput, "the '\(type)' box at byte \(offset) has an impossible size \(size)")
                }
                try recorder.found(
                    MediaError(
                        .invalidInput,
                        "the '\(type)' box at byte \(offset) has an impossible size \(size); the \(fileSize - offset) "
                            + "bytes from there on were not read"))
                break
            }
            // Compared with the bytes left, not as `offset + size`: a 64-bit size near Int64.max overflows.
            if size > fileSize - offset {
                try recorder.found(
                    MediaError(
                        .truncatedInput,
                        "the '\(type)' box at byte \(offset) claims \(size) bytes but only \(fileSize - offset) are left in the file"
                    ))
                size = fileSize - offset
            }
            if type == "moof" { fragmented = true }
            if inspectedTypes.contains(type) {
                guard size <= maxMovieBoxSize else {
                    throw MediaError(
                        .invalidInput, "the '\(type)' box is \(size) bytes, over the \(maxMovieBoxSize) limit")
                }
                try ArrivingFiles.wait(path, for: offset + size)
                try handle.seek(toOffset: UInt64(offset))
                let bytes = [UInt8](try handle.read(upToCount: Int(size)) ?? Data())
                guard bytes.count == Int(size) else {
                    throw MediaError(.truncatedInput, "the file got shorter while its '\(type)' box was read")
                }
                let walker = ISOBoxWalker(bytes: bytes, fileOffset: offset, fileSize: fileSize, recorder: recorder)
                if type == "moov" {
                    movie = try ISOMovieChecker(
                        walker: walker, contentStart: Int(headerSize), fileSize: fileSize, maxTracks: maxTracks
                    ).check()
                } else {
                    try ISOFragmentChecker(
                        walker: walker, contentStart: Int(headerSize), fileSize: fileSize,
                        defaultSampleSizes: movie?.defaultSampleSizes ?? [:], streams: movie?.streams ?? [:]
                    ).check()
                }
            }
            offset += size
        }
        guard movie != nil else {
            if let cut = recorder.damage.findings.first(where: { $0.code == .truncatedInput }) {
                throw MediaError(
                    .truncatedInput, "\(cut.message); what is left has no 'moov' box (no track descriptions)")
            }
            throw MediaError(.invalidInput, "the file has no 'moov' box (no track descriptions)")
        }
        return Inspection(fragmented: fragmented, damage: recorder.damage)
    }

    private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return bytes[at..<at + 4].reduce(0) { ($0 << 8) | UInt32($1) }
    }
}
