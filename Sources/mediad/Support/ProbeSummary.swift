import Foundation
import MediaCore

/// The human-readable form of `mediad probe`.
struct ProbeSummary {
    let text: String

    init(_ info: MediaInfo) {
        var lines: [String] = []
        var header = "\(info.container) (\(info.formatName)), \(info.size) bytes"
        if let duration = info.duration { header += String(format: ", %.3f s", duration) }
        if let bitRate = info.bitRate { header += ", \(bitRate / 1000) kb/s" }
        lines.append(header)
        for track in info.tracks {
            var parts = ["#\(track.index) \(track.kind): \(track.codec)"]
            if let profile = track.profile { parts.append(profile) }
            if let width = track.width, let height = track.height { parts.append("\(width)x\(height)") }
            if let rate = track.frameRate { parts.append("\(rate) fps") }
            if let rotation = track.rotation, rotation != 0 { parts.append("rotation \(rotation)°") }
            if let sampleRate = track.sampleRate { parts.append("\(sampleRate) Hz") }
            if let layout = track.channelLayout { parts.append(layout) }
            if let bitRate = track.bitRate { parts.append("\(bitRate / 1000) kb/s") }
            if let language = track.language { parts.append("[\(language)]") }
            if let frames = track.frameCount { parts.append("\(frames) frames") }
            lines.append("  " + parts.joined(separator: ", "))
            if let loudness = track.loudness {
                var measured = [
                    String(format: "%.1f LUFS integrated", loudness.integrated),
                    String(format: "%.1f LU range", loudness.range),
                ]
                if let peak = loudness.truePeak { measured.append(String(format: "%.1f dBTP true peak", peak)) }
                if let peak = loudness.samplePeak { measured.append(String(format: "%.1f dBFS sample peak", peak)) }
                lines.append("    loudness: " + measured.joined(separator: ", "))
            }
        }
        text = lines.joined(separator: "\n")
    }
}
