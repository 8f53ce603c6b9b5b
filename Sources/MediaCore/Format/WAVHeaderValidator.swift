import Foundation

/// Checks that a WAV file holds the samples its header declares, before libav reads it.
///
/// libav reads a WAV whose `data` chunk claims more bytes than the file has up to the end of the file
/// and stops there without a word, so a WAV cut in half encoded half its samples and "succeeded". mediad
/// says so: `truncated_input`, refused or (salvaged) a finding for the job's warnings. A writer that streams (to a pipe or socket) cannot go back to
/// fill in the sizes and leaves a sentinel there; such a file is valid and is read to its end.
///
/// The format chunk must state at least one channel and a sample rate mediad can work with: libav takes
/// 0 channels or a 2^31 Hz rate and fails later with a misleading code, or copies them into a new file.
public enum WAVHeaderValidator {
    /// `data` sizes meaning "unknown": 0 and 0xFFFFFFFF (libav's own streaming WAV writer), 0x7FFFFFFF
    /// (ALSA's arecord) and 0x7FFFF000 (SoX).
    public static let unknownDataSizes: Set<UInt32> = [0, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x7FFF_F000]

    /// Sample rates accepted in a WAV header: up to 768 kHz, the highest rate audio interfaces record.
    public static let sampleRates = 1...768_000
    /// Channel counts accepted in a WAV header: libav's decoders refuse more than 512.
    public static let channelCounts = 1...512

    /// Finds (`truncated_input`) a `data` chunk that declares more bytes than the file holds after its
    /// header: thrown under `refuse`, returned under `salvage`. Throws `truncated_input` when a chunk before
    /// the `data` chunk does (no sample is there), and `invalid_input` for a channel count or sample rate
    /// out of range.
    @discardableResult
    public static func validate(path: String, damaged: DamagedInput = .refuse) throws -> InputDamage {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaError(.ioError, "cannot open \(path)")
        }
        defer { try? handle.close() }
        let fileSize = try ArrivingFiles.finalSize(of: path) ?? Int64(handle.seekToEnd())
        let recorder = DamageRecorder(policy: damaged)
        var offset: Int64 = 12  // after "RIFF", the RIFF size and "WAVE"
        var byteRate: UInt32 = 0
        while offset + 8 <= fileSize {
            try ArrivingFiles.wait(path, for: offset + 20)
            try handle.seek(toOffset: UInt64(offset))
            // The chunk header and, for 'fmt ', the fields up to the byte rate.
            let header = [UInt8](try handle.read(upToCount: 20) ?? Data())
            guard header.count >= 8 else { return recorder.damage }
            let chunk = String(
                decoding: header[0..<4].map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            let size = littleEndian(header[4..<8])
            let available = fileSize - offset - 8
            if chunk == "data" {
                guard !unknownDataSizes.contains(size), Int64(size) > available else { return recorder.damage }
                let missing =
                    byteRate > 0
                    ? String(
                        format: " (its last %.3f s of %.3f s)", Double(Int64(size) - available) / Double(byteRate),
                        Double(size) / Double(byteRate)) : ""
                try recorder.found(
                    MediaError(
                        .truncatedInput,
                        "the WAV 'data' chunk declares \(size) bytes, but the file has only \(available) after its header"
                            + missing))
                return recorder.damage
            }
            if chunk == "fmt ", size >= 16, header.count == 20 {
                try checkFormat(
                    channels: Int(littleEndian(header[10..<12])), sampleRate: Int(littleEndian(header[12..<16])))
                byteRate = littleEndian(header[16..<20])
            }
            guard Int64(size) <= available else {
                throw MediaError(
                    .truncatedInput,
                    "the WAV '\(chunk)' chunk at byte \(offset) declares \(size) bytes, but the file has only "
                        + "\(available) after its header, and no samples")
            }
            offset += 8 + Int64(size) + Int64(size % 2)
        }
        return recorder.damage
    }

    private static func checkFormat(channels: Int, sampleRate: Int) throws {
        guard channelCounts.contains(channels) else {
            throw MediaError(
                .invalidInput, "the WAV header states \(channels) channels (mediad reads \(channelCounts))")
        }
        guard sampleRates.contains(sampleRate) else {
            throw MediaError(
                .invalidInput, "the WAV header states a sample rate of \(sampleRate) Hz (mediad reads 1 to 768000)")
        }
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { ($0 << 8) | UInt32($1) }
    }
}
