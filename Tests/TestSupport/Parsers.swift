import Foundation

/// Readers of media files that share no code with libav's demuxers, run as separate programs (installed
/// by `make test-deps`): GStreamer's own demuxers and parsers (qtdemux, matroskademux, tsdemux, flvdemux,
/// aacparse, wavparse), MKVToolNix's reader, tstools' T-STD checker and MediaInfo. Each function returns
/// the problems it found, as lines for a test to show; empty means the file read cleanly.
public enum Parsers {
    /// How long a GStreamer run may take before it counts as hung: a few seconds of small media play in
    /// well under a second. `timeout` then sends SIGKILL: a SIGTERM may be blocked in the signal mask the
    /// test runner passes down, and a hung run once outlived its 60 s by a quarter of an hour.
    static let gstreamerTimeout = "60"

    /// GStreamer plays the file to the end into fake sinks (`filesrc ! decodebin`, each of the `streams`
    /// pads through a queue into a `fakesink`: every stream demuxed, parsed and decoded; a single sink would
    /// leave the other pads unlinked, which can stall the pipeline) and `gst-discoverer-1.0` describes it.
    /// Any error or warning, a failed or timed-out run, or another stream count is a problem. (GStreamer's
    /// AAC and H.264 decoders come from gst-libav; the container is read by GStreamer's own demuxer. A JPEG,
    /// PNG or WebP picture is one stream, read by jpegdec, pngdec or webpdec; a Y4M file by y4mdec.)
    public static func gstreamerProblems(_ path: String, streams: Int) throws -> [String] {
        var problems: [String] = []
        let branches = (0..<streams).flatMap { _ in ["d.", "!", "queue", "!", "fakesink"] }
        let play = try Command.run(
            "timeout",
            [
                "-s", "KILL", gstreamerTimeout, "gst-launch-1.0", "-q", "filesrc", "location=\(path)", "!", "decodebin",
                "name=d",
            ]
                + branches,
            allowFailure: true)
        let playText = play.text + play.stderr
        if play.status != 0 || playText.contains("WARNING") || playText.contains("ERROR") {
            problems.append("gst-launch-1.0 exited \(play.status): \(playText.suffix(1500))")
        }
        let discover = try Command.run(
            "timeout", ["-s", "KILL", gstreamerTimeout, "gst-discoverer-1.0", path], allowFailure: true)
        let text = discover.text + discover.stderr
        let found = text.split(separator: "\n").filter {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return line.hasPrefix("audio #") || line.hasPrefix("video #") || line.hasPrefix("video(image) #")
        }.count
        if discover.status != 0 || text.contains("WARNING") || text.contains("rror") || found != streams {
            problems.append("gst-discoverer-1.0 found \(found) of \(streams) streams: \(text.suffix(1500))")
        }
        return problems
    }

    /// `mkvmerge -J`: the container must be recognized and supported, with no errors or warnings, and
    /// `tracks` tracks. Returns the problems and the parsed tracks.
    public static func mkvmerge(_ path: String, tracks: Int) throws -> (problems: [String], tracks: [[String: Any]]) {
        let output = try Command.run("mkvmerge", ["-J", path], allowFailure: true)
        guard let json = try? JSONSerialization.jsonObject(with: output.stdout) as? [String: Any] else {
            return (["mkvmerge -J printed no JSON: \(output.stderr)"], [])
        }
        var problems: [String] = []
        let container = json["container"] as? [String: Any] ?? [:]
        if container["recognized"] as? Bool != true || container["supported"] as? Bool != true {
            problems.append("mkvmerge does not support the file: \(container)")
        }
        for key in ["errors", "warnings"] {
            if let list = json[key] as? [String], !list.isEmpty { problems.append("mkvmerge \(key): \(list)") }
        }
        let found = json["tracks"] as? [[String: Any]] ?? []
        if found.count != tracks { problems.append("mkvmerge found \(found.count) of \(tracks) tracks") }
        return (problems, found)
    }

    /// `tsreport -b`: tstools marks with `###` every PES whose decoding time has passed by the PCR it
    /// arrives with (a buffer underflow in the T-STD model) and other timing faults.
    public static func tsreportProblems(_ path: String) throws -> [String] {
        let output = try Command.run("tsreport", ["-b", path], allowFailure: true)
        let marked = (output.text + output.stderr).split(separator: "\n").filter { $0.contains("###") }
        var problems = marked.map(String.init)
        if output.status != 0 { problems.append("tsreport exited \(output.status): \(output.stderr.suffix(500))") }
        return problems
    }

    /// MediaInfo's description of the file (`--Output=JSON`): its tracks, "General" first.
    public static func mediainfo(_ path: String) throws -> [[String: Any]] {
        let output = try Command.run("mediainfo", ["--Output=JSON", path])
        let json = try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any]
        return (json?["media"] as? [String: Any])?["track"] as? [[String: Any]] ?? []
    }
}
