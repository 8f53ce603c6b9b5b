import Foundation

/// The independent judge: ffprobe and ffmpeg, run as separate programs on the files mediad wrote.
public enum Oracle {
    /// `ffprobe -show_format -show_streams` as JSON.
    public static func probe(_ path: String) throws -> [String: Any] {
        let output = try Command.run(
            "ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path])
        return try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any] ?? [:]
    }

    /// The streams of `ffprobe -show_streams`.
    public static func streams(_ path: String) throws -> [[String: Any]] {
        try probe(path)["streams"] as? [[String: Any]] ?? []
    }

    /// The format section of ffprobe's output.
    public static func format(_ path: String) throws -> [String: Any] {
        try probe(path)["format"] as? [String: Any] ?? [:]
    }

    /// Per-stream MD5 of the decoded frames/samples: `ffmpeg -i X -map 0:<spec> -f streamhash -hash md5 -`.
    /// Each line is "index,type,MD5=…"; the index is dropped so files with reordered tracks compare.
    /// Frames are hashed as stored (`-autorotate 0`: rotation is metadata, checked separately) and each
    /// exactly once (`-fps_mode passthrough`: no frame-rate conversion, which would make VFR tracks with
    /// different time bases duplicate different frames).
    public static func decodedHashes(_ path: String, streams spec: String = "0", extraInput: [String] = [])
        throws -> [String]
    {
        let output = try Command.run(
            "ffmpeg",
            ["-v", "error", "-autorotate", "0"] + extraInput + [
                "-i", path, "-map", spec, "-fps_mode", "passthrough", "-f", "streamhash", "-hash", "md5", "-",
            ])
        return output.text.split(separator: "\n").map { line in
            String(line.split(separator: ",").dropFirst().joined(separator: ","))
        }
    }

    /// Packet-level facts per stream: `ffprobe -show_packets` (pts, dts, flags, size) as dictionaries.
    public static func packets(_ path: String, stream: String) throws -> [[String: Any]] {
        let output = try Command.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", stream, "-print_format", "json", "-show_entries",
                "packet=pts,dts,duration,flags,size", path,
            ])
        let json = try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any]
        return json?["packets"] as? [[String: Any]] ?? []
    }

    /// Decodes an audio stream (the first by default) to interleaved little-endian float samples.
    public static func decodeAudio(_ path: String, stream spec: String = "a:0", extraInput: [String] = []) throws
        -> [Float]
    {
        let output = try Command.run(
            "ffmpeg",
            ["-v", "error"] + extraInput + ["-i", path, "-map", "0:\(spec)", "-f", "f32le", "-c:a", "pcm_f32le", "-"])
        return output.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Number of packets in stream `spec` (e.g. "v:0") as ffprobe counts them; -1 where it cannot (N/A for a
    /// stream without packets whose format it never learned).
    public static func packetCount(_ path: String, stream spec: String) throws -> Int {
        let output = try Command.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", spec, "-count_packets", "-show_entries",
                "stream=nb_read_packets", "-of", "csv=p=0", path,
            ])
        // A stream with side data (a display matrix) prints "1," rather than "1".
        let first = output.text.split(separator: "\n").first?.split(separator: ",").first.map(String.init) ?? ""
        return Int(first.trimmingCharacters(in: .whitespaces)) ?? -1
    }

    /// The payload bytes of stream `spec`, packets concatenated (`-c copy -f data`).
    public static func packetPayload(_ path: String, stream spec: String) throws -> Data {
        try Command.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:\(spec)", "-c", "copy", "-f", "data", "-"])
            .stdout
    }

    /// Per-frame MD5s of the first video stream as stored (no rotation, no frame-rate conversion).
    public static func videoFrameHashes(_ path: String) throws -> [String] { try frameHashes(path, stream: "v:0") }

    /// Per-frame MD5s of stream `spec` (e.g. "v:0") as stored (no rotation, no frame-rate conversion).
    public static func frameHashes(_ path: String, stream spec: String) throws -> [String] {
        let output = try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-autorotate", "0", "-i", path, "-map", "0:\(spec)", "-fps_mode", "passthrough",
                "-f", "framemd5", "-",
            ])
        return output.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Whether the decoded first audio stream of `output` is that of `input`, possibly with encoder priming
    /// in front (containers that cannot signal priming play it) and padding behind.
    /// Returns the offset (in interleaved sample values) at which `input`'s audio starts in `output`'s, or nil.
    public static func audioOffset(
        of input: String, in output: String, stream spec: String = "a:0", maxPriming: Int = 8192
    )
        throws -> Int?
    {
        let source = try decodeAudio(input, stream: spec)
        let result = try decodeAudio(output, stream: spec)
        guard !source.isEmpty, result.count >= source.count else { return nil }
        for offset in 0...min(maxPriming, result.count - source.count)
        where result[offset..<offset + source.count].elementsEqual(source) {
            return offset
        }
        return nil
    }

    /// The order of the top-level boxes of an ISO BMFF file, e.g. ["ftyp", "moov", "mdat"].
    public static func topLevelBoxes(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var boxes: [String] = []
        var offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { ($0 << 8) | Int($1) }
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1, offset + 16 <= data.count {
                size = data[offset + 8..<offset + 16].reduce(0) { ($0 << 8) | Int($1) }
            } else if size == 0 {
                size = data.count - offset
            }
            boxes.append(type)
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }
}
