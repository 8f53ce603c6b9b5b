import Foundation
import MediaCore

/// The MIME type an output is served as, by its file extension: containers by `ContainerFormat` (an fMP4
/// initialization segment `init.mp4` is `video/mp4`, `init.m4a` `audio/mp4`, MPEG-TS segments
/// `video/mp2t`), HLS playlists, DASH MPDs and fMP4 media segments by their registered types.
package enum OutputContentType {
    package static func of(_ name: String) -> String {
        let ext = URL(fileURLWithPath: name).pathExtension.lowercased()
        if let format = ContainerFormat(fileExtension: ext), ext == format.fileExtension { return format.contentType }
        switch ext {
        case "aac": return "audio/aac"
        case "mp3": return "audio/mpeg"
        case "webm": return "video/webm"
        case "wav": return "audio/wav"
        case "h264": return "video/h264"
        case "h265": return "video/h265"
        case "json": return "application/json"
        case "m3u8": return "application/vnd.apple.mpegurl"
        case "mpd": return "application/dash+xml"
        case "m4s": return "video/iso.segment"
        case "jpg": return "image/jpeg"
        case "png": return "image/png"
        case "webp": return "image/webp"
        case "vtt": return "text/vtt"
        default: return "application/octet-stream"
        }
    }
}
