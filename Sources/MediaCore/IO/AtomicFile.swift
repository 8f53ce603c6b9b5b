import DurableIO
import Foundation

/// Writes small files (JSON records) so that readers see either the old content or the new, never a mix.
public enum AtomicFile {
    /// Writes `data` to a temporary file beside `path`, syncs it, renames it over `path`, syncs the directory
    /// (`DurableFile.replace`); a failure is an `io_error`.
    public static func write(_ data: Data, to path: String) throws {
        try MediaError.fromFileSystem { try DurableFile.replace(path, with: data) }
    }
}
