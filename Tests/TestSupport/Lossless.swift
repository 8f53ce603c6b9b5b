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
            for (index, codec) in source.map(\.codec).enumerated() {
                let spec = "\(kind.prefix(1)):\(index)"
                if codec == "amr_nb" {
                    if try Oracle.packetPayload(input, stream: spec) != Oracle.packetPayload(output, stream: spec) {
                        problems.append("\(spec) (amr_nb): payload bytes differ")
                    }
                    continue
                }
                let same =
                    try Oracle.decodedHashes(input, streams: "0:\(spec)")
                    == Oracle.decodedHashes(output, streams: "0:\(spec)")
                if same { continue }
                if kind == "audio", primingMayShow || hiddenMayShow,
                    try Oracle.audioOffset(
                        of: input, in: output, stream: spec, maxPriming: hiddenMayShow ? 1 << 20 : 8192)
                        != nil
                {
                    continue
                }
                if kind == "video", hiddenMayShow, try contains(output, input, stream: spec) { continue }
                problems.append("\(spec) (\(codec)): decoded content differs")
            }
        }
        return problems
    }

    /// Whether the decoded frames of `input`'s `spec` stream appear, in order and contiguous, among `output`'s.
    private static func contains(_ output: String, _ input: String, stream spec: String) throws -> Bool {
        let shown = try Oracle.frameHashes(input, stream: spec)
        let all = try Oracle.frameHashes(output, stream: spec)
        guard !shown.isEmpty, all.count >= shown.count else { return false }
        return (0...(all.count - shown.count)).contains { all[$0..<$0 + shown.count].elementsEqual(shown) }
    }

    private static func mediaTracks(_ path: String) throws -> [(kind: String, codec: String)] {
        try Oracle.streams(path).compactMap { stream in
            guard let kind = stream["codec_type"] as? String, kind == "audio" || kind == "video",
                (stream["disposition"] as? [String: Any])?["attached_pic"] as? Int != 1
            else { return nil }
            return (kind, stream["codec_name"] as? String ?? "?")
        }
    }
}
