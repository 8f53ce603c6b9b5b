import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Recordings for the repair tests, written by the ffmpeg CLI as a recorder writes them (the index, `moov`,
/// after the media data), and the oracle that judges a repair against the same recording finished normally:
/// ffprobe's packets (time, size, MD5 of the payload), ffmpeg's decoder, GStreamer and MediaInfo.
enum RepairRecordings {
    static let source = [
        "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i",
        "sine=frequency=440:sample_rate=48000",
    ]

    /// `seconds` of 320x240 25 fps test pattern and a 440 Hz tone, coded with `codecs`, in `container`.
    static func recording(_ name: String, codecs: [String], container: String, seconds: Int = 4) throws -> String {
        try Fixtures.make(name, source + ["-t", String(seconds)] + codecs + ["-f", container])
    }

    /// H.264 (x264's defaults: B-frames, b-pyramid) and AAC.
    static let h264AAC = ["-c:v", "libx264", "-c:a", "aac"]
    /// H.265 (x265, B-frames) and stereo AAC.
    static let hevcAAC = [
        "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-c:a", "aac", "-ac", "2",
    ]
    /// H.264 and 16-bit PCM, as cameras write MOV.
    static let h264PCM = ["-c:v", "libx264", "-c:a", "pcm_s16le"]

    /// The content of the first `mdat` of `path`: where a recorder writes the samples.
    static func mediaData(_ path: String) throws -> Range<Int> {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<offset + 4].reduce(0) { ($0 << 8) | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            var header = 8
            if size == 1 {
                size = bytes[offset + 8..<offset + 16].reduce(0) { ($0 << 8) | Int($1) }
                header = 16
            } else if size == 0 {
                size = bytes.count - offset
            }
            if type == "mdat" { return (offset + header)..<min(bytes.count, offset + size) }
            offset += max(size, 8)
        }
        throw NoMediaData(path: path)
    }

    struct NoMediaData: Error {
        let path: String
    }

    /// A copy of `path` cut `fraction` of the way into its media data, as if the recorder died there: the
    /// index after the media data is lost. Returns the copy and the number of bytes kept.
    static func cut(_ path: String, at fraction: Double, in scratch: Scratch, name: String) throws -> (String, Int) {
        let data = try mediaData(path)
        let length = data.lowerBound + Int(Double(data.count) * fraction)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(length))
        return (try scratch.write(name, bytes), length)
    }

    /// One packet as ffprobe sees it.
    struct Packet: Equatable {
        var time: Double
        var position: Int
        var size: Int
        var hash: String
    }

    /// The packets of stream `spec` (`v:0`, `a:0`) of `path`. ffprobe's compact output, read one `packet|`
    /// record at a time: a packet's side data breaks its line (and its JSON output, for some files).
    static func packets(_ path: String, _ spec: String) throws -> [Packet] {
        let output = try Command.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", spec, "-show_entries", "packet=pts_time,pos,size,data_hash",
                "-show_data_hash", "MD5", "-of", "compact", path,
            ])
        return output.text.components(separatedBy: "packet|").dropFirst().compactMap { record in
            var fields: [String: String] = [:]
            for pair in record.split(whereSeparator: { $0 == "|" || $0 == "\n" }) {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            guard let time = fields["pts_time"].flatMap(Double.init), let size = fields["size"].flatMap(Int.init),
                let hash = fields["data_hash"]
            else { return nil }
            return Packet(time: time, position: fields["pos"].flatMap(Int.init) ?? -1, size: size, hash: hash)
        }
    }

    /// The top-level boxes of `bytes`: type, offset and size.
    static func boxes(_ bytes: [UInt8]) -> [(type: String, offset: Int, size: Int)] {
        var boxes: [(type: String, offset: Int, size: Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { ($0 << 8) | Int($1) }
            guard size >= 8 else { break }
            boxes.append((String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self), offset, size))
            offset += size
        }
        return boxes
    }

    /// Judges `repaired` against `original`, the same recording finished normally, cut at `cut` bytes:
    /// every packet of the repair is one of the original's, at the same time (nothing invented, audio and
    /// video where they were); at least 99 % of the packets written whole before the cut are there; each
    /// track starts where the original's does; the file decodes without an error and GStreamer and
    /// MediaInfo read it. PCM audio (`pcmAudio`), whose packets a repair may cut otherwise, is compared
    /// decoded: the repair's samples are the original's first ones. Returns the packets recovered per
    /// stream and those written before the cut.
    @discardableResult
    static func expectFaithful(
        _ repaired: String, to original: String, cut: Int, streams: [String] = ["v:0", "a:0"],
        pcmAudio: Bool = false
    ) throws -> [String: (recovered: Int, written: Int)] {
        var counts: [String: (recovered: Int, written: Int)] = [:]
        for spec in streams {
            let all = try packets(original, spec)
            let written = all.filter { $0.position >= 0 && $0.position + $0.size <= cut }
            let recovered = try packets(repaired, spec)
            if pcmAudio && spec.hasPrefix("a") {
                let originalSamples = try Oracle.decodeAudio(original, stream: spec)
                let repairedSamples = try Oracle.decodeAudio(repaired, stream: spec)
                let writtenBytes = written.reduce(0) { $0 + $1.size }
                let frameBytes =
                    2
                    * Int(
                        (try Oracle.streams(original).first { $0["codec_type"] as? String == "audio" }?["channels"]
                            as? Int) ?? 1)
                #expect(repairedSamples.count <= originalSamples.count)
                let differing = zip(originalSamples, repairedSamples).enumerated().first {
                    $0.element.0 != $0.element.1
                }
                #expect(
                    differing == nil, "the repair's PCM differs from the original's at sample \(differing?.offset ?? 0)"
                )
                #expect(Double(repairedSamples.count) >= 0.99 * Double(writtenBytes / frameBytes * frameBytes / 2))
                counts[spec] = (repairedSamples.count, writtenBytes / 2)
                continue
            }
            let unknown = recovered.filter { packet in
                !all.contains { $0.hash == packet.hash && $0.size == packet.size && abs($0.time - packet.time) < 0.001 }
            }
            #expect(
                unknown.isEmpty,
                "\(spec): \(unknown.count) packets of the repair are not the original's at their time, e.g. \(unknown.prefix(3))"
            )
            let kept = written.filter { packet in recovered.contains { $0.hash == packet.hash } }.count
            #expect(
                Double(kept) >= 0.99 * Double(written.count),
                "\(spec): \(kept) of the \(written.count) packets written before the cut were recovered")
            counts[spec] = (recovered.count, written.count)
        }
        for (index, stream) in try Oracle.streams(repaired).enumerated() {
            let start = Double(stream["start_time"] as? String ?? "") ?? -1
            let expected = Double(try Oracle.streams(original)[index]["start_time"] as? String ?? "") ?? -2
            #expect(
                abs(start - expected) < 0.04, "stream \(index) starts at \(start) s, the original's at \(expected) s")
        }
        let decode = try Command.run("ffmpeg", ["-v", "error", "-i", repaired, "-f", "null", "-"], allowFailure: true)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "ffmpeg decoding the repair: \(decode.stderr.prefix(500))")
        #expect(try Parsers.gstreamerProblems(repaired, streams: streams.count) == [])
        let tracks = try Parsers.mediainfo(repaired).compactMap { $0["@type"] as? String }
        #expect(tracks.filter { $0 == "Video" || $0 == "Audio" }.count == streams.count, "MediaInfo: \(tracks)")
        return counts
    }
}
