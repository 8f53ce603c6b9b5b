import MediaCore
import MediaJobs

/// Refuses, at upload time, an input that is obviously not what its job reads — a playlist, a concat
/// list, text or random bytes named `.mp4`, a WAV sent to decode — by its first bytes, with the same
/// classification the engine applies, so no job is queued for it (415 `unsupported_format`, or 400
/// `empty_input`).
enum InputScreen {
    /// Checks the file received for `part` of a job of `kind`.
    static func check(_ path: String, part: String, kind: JobKind) throws {
        guard let input = kind.inputs.first(where: { $0.name == part }) else {
            throw MediaError(.internalError, "\(kind) takes no part '\(part)'")
        }
        try input.screen(path, for: kind)
    }
}
