import Foundation
import MediaCore

/// The directory of a kind that writes several files side by side (demux, waveform, thumbnails).
enum OutputDirectory {
    /// The directory holding the primary `output` path a job runs with: `.` for a bare file name.
    static func containing(_ output: String) -> String {
        let parent = (output as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// Creates `path` and its parents if missing; `io_error` when that fails.
    static func create(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw MediaError(.ioError, "cannot create the output directory \(path): \(error.localizedDescription)")
        }
    }
}
