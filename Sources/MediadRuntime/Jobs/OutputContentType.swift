import Foundation
import MediaCore

/// The MIME type an output is served as, by its file extension.
package enum OutputContentType {
    package static func of(_ name: String) -> String {
        let ext = URL(fileURLWithPath: name).pathExtension.lowercased()
        if let format = ContainerFormat(fileExtension: ext), ext == format.fileExtension { return format.contentType }
        switch ext {
        case "aac": return "audio/aac"
        case "wav": return "audio/wav"
        case "h264": return "video/h264"
        case "h265": return "video/h265"
        case "json": return "application/json"
        case "jpg": return "image/jpeg"
        case "png": return "image/png"
        case "webp": return "image/webp"
        case "vtt": return "text/vtt"
        default: return "application/octet-stream"
        }
    }
}
