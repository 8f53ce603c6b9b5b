import Foundation

/// Writes small files (JSON records) so that readers see either the old content or the new, never a mix.
public enum AtomicFile {
    /// Writes `data` to a temporary file beside `path`, syncs it, renames it over `path`, syncs the directory.
    public static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try data.write(to: temporary)
            try FileSync.syncFile(atPath: temporary.path)
            guard rename(temporary.path, path) == 0 else {
                throw MediaError(.ioError, "cannot rename into \(path): \(String(cString: strerror(errno)))")
            }
            try FileSync.syncDirectory(containing: path)
        } catch let error as MediaError {
            unlink(temporary.path)
            throw error
        } catch {
            unlink(temporary.path)
            throw MediaError(.ioError, "cannot write \(path): \(error.localizedDescription)")
        }
    }
}
