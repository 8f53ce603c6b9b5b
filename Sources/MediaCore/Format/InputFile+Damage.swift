import CFFmpeg
import Foundation

extension InputFile {
    /// What a stream lost to the damage: the samples its tables declare that were not read, and the
    /// seconds from the end of what was read to where the stream says it ends.
    public struct StreamLoss: Sendable, Equatable {
        public var stream: Int
        public var codec: String
        /// Samples the input declares for the stream, when its tables say (an ISO file).
        public var declared: Int?
        public var read: Int
        public var seconds: Double?

        /// Declared samples not read, when known.
        public var lostSamples: Int? { declared.map { max(0, $0 - read) } }
    }

    /// The losses of `streams` once reading is over: for each stream, how much of what the input declares
    /// was not read. Nothing is lost from a sound input.
    public func losses(of streams: [Int]) -> [StreamLoss] {
        guard !damage.isEmpty else { return [] }
        return streams.compactMap { index in
            let stream = self.stream(index)
            let read = packetsRead[index] ?? 0
            let declared: Int? =
                container != .mp4
                ? nil
                : hasMovieFragments
                    ? damage.declaredFragmentSamples[index] : Int(avformat_index_get_entries_count(stream))
            var seconds: Double? = nil
            let start = stream.pointee.start_time
            let duration = stream.pointee.duration
            if duration != mediad_nopts_value(), duration > 0 {
                let end = (start == mediad_nopts_value() ? 0 : start) &+ duration
                let gap = end - (readEnds[index] ?? (start == mediad_nopts_value() ? 0 : start))
                seconds = gap > 0 ? Double(gap) * av_q2d(stream.pointee.time_base) : 0
            }
            let loss = StreamLoss(
                stream: index, codec: String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id)),
                declared: declared, read: read, seconds: seconds)
            return (loss.lostSamples ?? 0) > 0 || (loss.seconds ?? 0) >= 0.0005 ? loss : nil
        }
    }

    /// Whether `packet` is a sample the end of the file cuts: read up to the last byte of a file found cut
    /// short, libav hands it over shorter than its tables say (a converter or decoder may then refuse it).
    public func isCut(_ packet: Packet) -> Bool {
        let position = packet.pointer.pointee.pos
        return damage.isTruncated && position >= 0 && position + Int64(packet.size) >= size
    }

    /// The error a job fails with when it read nothing of `streams` from a damaged input (a file with
    /// nothing usable is still an error): the first finding's code, saying nothing could be read; nil
    /// for a sound input or when something was read.
    public func nothingRead(of streams: [Int]) -> MediaError? {
        guard let first = damage.findings.first, streams.allSatisfy({ (packetsRead[$0] ?? 0) == 0 }) else {
            return nil
        }
        return MediaError(first.code, "nothing of the input could be read: \(first.message)")
    }

    /// The job's warnings for the damage it salvaged: one starting `truncated_input: ` when part of the
    /// file is missing, one starting `invalid_input: ` for what libav read past although malformed; the
    /// first of them says what each of `streams` lost (samples, seconds) and how long the output lasts
    /// (`outputDuration`, when the job knows it). `readToEnd` is false when the job stopped reading by
    /// itself (a trim's end), so that what was not read is not counted as lost.
    public func damageWarnings(streams: [Int], readToEnd: Bool, outputDuration: Double?) -> [String] {
        guard !damage.isEmpty else { return [] }
        let lossText = readToEnd ? losses(of: streams).map(Self.describe) : []
        var summary = lossText.isEmpty ? "" : "; " + lossText.joined(separator: "; ")
        if let outputDuration { summary += "; the output lasts \(Self.seconds(outputDuration))" }
        var warnings: [String] = []
        for code in [MediaError.Code.truncatedInput, .invalidInput] {
            let findings = damage.findings.filter { $0.code == code }.map(\.message)
            guard !findings.isEmpty else { continue }
            warnings.append("\(code): " + findings.joined(separator: "; ") + (warnings.isEmpty ? summary : ""))
        }
        if damage.unlistedFindings > 0 {
            warnings.append("\(damage.unlistedFindings) further findings of damage are not listed")
        }
        return warnings
    }

    /// "track 0 (aac): 1084 of its 1131 samples (34.674 s) could not be read".
    private static func describe(_ loss: StreamLoss) -> String {
        let time = loss.seconds.flatMap { $0 >= 0.0005 ? Self.seconds($0) : nil }
        if let declared = loss.declared, let lost = loss.lostSamples, lost > 0 {
            return "track \(loss.stream) (\(loss.codec)): \(lost) of its \(declared) samples"
                + (time.map { " (\($0))" } ?? "") + " could not be read"
        }
        return "track \(loss.stream) (\(loss.codec)): its last \(time ?? "0.000 s") could not be read"
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.3f s", value)
    }
}
