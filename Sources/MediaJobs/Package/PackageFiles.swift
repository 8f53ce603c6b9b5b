import DurableIO
import Foundation
import MediaCore

/// The files of one package, written under their final names in a directory tree: each one complete
/// before its rename, so no partial file ever has a name a manifest refers to.
///
/// Each file's writeback starts as soon as it is written, and `syncAll()` makes every file and folder
/// durable once the package is complete, before the job reports it: the disk writes the segments while
/// the next ones are muxed instead of waiting on one `fsync` per segment. `removeAll()` deletes what was
/// written, for a package that fails half-way.
final class PackageFiles {
    let directory: String
    /// Output names (`720p/seg_00001.m4s`) in the order they were first written; a playlist written again
    /// (replaced whole, `LivePlaylists`) is listed once.
    private(set) var names: [String] = []
    private var written: Set<String> = []
    private var folders: Set<String> = []

    init(directory: String) { self.directory = directory }

    /// Writes a segment as the muxer left it (see `SegmentBytes`).
    func write(_ segment: SegmentBytes, as name: String) throws {
        try segment.withUnsafeBytes { try write($0, as: name) }
    }

    /// Writes `text` as UTF-8.
    func write(_ text: String, as name: String) throws {
        try Array(text.utf8).withUnsafeBytes { try write($0, as: name) }
    }

    /// Writes `bytes` as `name`, a path relative to the package's directory, creating its folder; a file
    /// already of that name is replaced at once, by the rename, so a reader finds one version or the other.
    func write(_ bytes: UnsafeRawBufferPointer, as name: String) throws {
        let path = directory + "/" + name
        let folder = (path as NSString).deletingLastPathComponent
        if !folders.contains(folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw MediaError(.ioError, "cannot create \(folder): \(error.localizedDescription)")
            }
            folders.insert(folder)
        }
        try MediaError.fromFileSystem {
            let temporary = DurableFile.temporaryPath(for: path)
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw FileSystemError("cannot create", temporary) }
            do {
                defer { close(fd) }
                try DurableFile.writeAll(fd, bytes, path: temporary)
                DurableFile.startWriteback(fd)
            } catch {
                unlink(temporary)
                throw error
            }
            guard rename(temporary, path) == 0 else {
                let error = FileSystemError("cannot rename \(temporary) to", path)
                unlink(temporary)
                throw error
            }
        }
        if written.insert(name).inserted { names.append(name) }
    }

    /// Syncs every file written, then every folder written into and the package's directory, so the
    /// files and their names survive a crash.
    func syncAll() throws {
        try MediaError.fromFileSystem {
            for name in names { try DurableFile.syncFile(atPath: directory + "/" + name) }
            for folder in folders.sorted() { try DurableFile.syncDirectory(folder) }
            try DurableFile.syncDirectory(directory)
        }
    }

    /// Deletes every file written and the folders made for them, best effort.
    func removeAll() {
        for name in names { unlink(directory + "/" + name) }
        for folder in folders.sorted(by: >) where folder != directory { rmdir(folder) }
        names.removeAll()
        written.removeAll()
    }
}
