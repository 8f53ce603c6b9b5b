import Foundation

/// Compares the audio and video of a stream-copied output with its input, track kind by track kind.
public enum Lossless {
    /// What differs between `input` and `output`; empty when every frame and sample is identical.
    ///
    /// Video tracks must decode to identical frames. Audio tracks must decode to identical samples; where
    /// `primingMayShow` (containers that cannot signal AAC priming) the output may carry the encoder
    /// delay in front. AMR-NB is compared by payload bytes, because 3GP files pack many AMR frames into
    /// one sample and ffmpeg decodes only the first frame of each such packet.
    ///
    /// Where `hiddenMayShow` (the input's edit list hides decoded frames or samples that the target cannot
    /// hide) the input's shown video frames must appear in order and contiguous among the output's, and its
    /// audio samples whole at any offset.
    public static func problems(input: String, output: String, primingMayShow: Bool, hiddenMayShow: Bool = false)
        throws -> [String]
    {
        var problems: [String] = []
        let sourceTracks = try mediaTracks(input)
        let outputTracks = try mediaTracks(output)
        for kind in ["video", "audio"] {
            let source = sourceTracks.filter { $0.kind == kind }
            let result = outputTracks.filter { $0.kind == kind }
            guard source.count == result.count else {
                problems.append("\(kind): \(source.count) tracks in, \(result.count) out")
                continue
            }
            for (from, to) in zip(source, result) {
                if let problem = try difference(input, from, output, to, primingMayShow, hiddenMayShow) {
                    problems.append(problem)
                }
            }
        }
        return problems
    }

    /// A track is `kind`, `codec`, and its stream specifier in its own file (e.g. "v:1").
    private typealias Track = (kind: String, codec: String, spec: String)

    /// What differs between track `from` of `input` and track `to` of `output`, or nil.
    private static func difference(
        _ input: String, _ from: Track, _ output: String, _ to: Track, _ primingMayShow: Bool, _ hiddenMayShow: Bool
    ) throws -> String? {
        let label = "\(from.spec) (\(from.codec))"
        if from.codec == "amr_nb" {
            let same =
                try Oracle.packetPayload(input, stream: from.spec) == Oracle.packetPayload(output, stream: to.spec)
            return same ? nil : "\(label): payload bytes differ"
        }
        let same =
            try Oracle.decodedHashes(input, streams: "0:\(from.spec)")
            == Oracle.decodedHashes(output, streams: "0:\(to.spec)")
        if same { return nil }
        if from.kind == "audio", primingMayShow || hiddenMayShow {
            let source = try Oracle.decodeAudio(input, stream: from.spec)
            let result = try Oracle.decodeAudio(output, stream: to.spec)
            if contains(result, source, within: hiddenMayShow ? 1 << 20 : 8192) { return nil }
        }
        if from.kind == "video", hiddenMayShow {
            let shown = try Oracle.frameHashes(input, stream: from.spec)
            if contains(try Oracle.frameHashes(output, stream: to.spec), shown, within: .max) { return nil }
        }
        return "\(label): decoded content differs"
    }

    /// Whether `part` (not empty) appears whole in `whole`, starting at most `within` elements in.
    private static func contains<T: Equatable>(_ whole: [T], _ part: [T], within: Int) -> Bool {
        guard !part.isEmpty, whole.count >= part.count else { return false }
        return (0...min(within, whole.count - part.count)).contains {
            whole[$0..<$0 + part.count].elementsEqual(part)
        }
    }

    /// The audio and video tracks of `path`, leaving out cover art and tracks without a single packet, which
    /// hold nothing to lose (an ISO muxer writes no track for them, Matroska an empty one). A track of
    /// pictures shown in turn (timed thumbnails: an enhanced podcast's chapter pictures) is video, not cover.
    private static func mediaTracks(_ path: String) throws -> [Track] {
        var seen: [String: Int] = [:]
        return try Oracle.streams(path).compactMap { stream in
            guard let kind = stream["codec_type"] as? String, kind == "audio" || kind == "video" else { return nil }
            let spec = "\(kind.prefix(1)):\(seen[kind, default: 0])"
            seen[kind, default: 0] += 1
            let disposition = stream["disposition"] as? [String: Any]
            let cover = disposition?["attached_pic"] as? Int == 1 && disposition?["timed_thumbnails"] as? Int != 1
            guard !cover else { return nil }
            if try Oracle.packetCount(path, stream: spec) <= 0 { return nil }
            return (kind, stream["codec_name"] as? String ?? "?", spec)
        }
    }
}
