import DurableIO
import Foundation
import MediaCore

/// The files of one package, written under their final names in a directory tree: each one complete and
/// synced before its rename, so no partial file ever has a name a manifest refers to.
///
/// `removeAll()` deletes what was written, for a package that fails half-way; `syncFolders()` makes the
/// renames themselves durable once everything is written.
final class PackageFiles {
    let directory: String
    /// Output names (`720p/seg_00001.m4s`) in the order they were written.
    private(set) var names: [String] = []
    private var folders: Set<String> = []

    init(directory: String) { self.directory = directory }

    /// Writes `bytes` as `name`, a path relative to the package's directory, creating its folder.
    func write(_ bytes: [UInt8], as name: String) throws {
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
            try DurableFile.createSynced(Data(bytes), at: temporary)
            guard rename(temporary, path) == 0 else {
                let error = FileSystemError("cannot rename \(temporary) to", path)
                unlink(temporary)
                throw error
            }
        }
        names.append(name)
    }

    /// Writes `text` as UTF-8.
    func write(_ text: String, as name: String) throws { try write(Array(text.utf8), as: name) }

    /// Syncs every folder written into, and the package's directory, so the names survive a crash.
    func syncFolders() throws {
        try MediaError.fromFileSystem {
            for folder in folders.sorted() { try DurableFile.syncDirectory(folder) }
            try DurableFile.syncDirectory(directory)
        }
    }

    /// Deletes every file written and the folders made for them, best effort.
    func removeAll() {
        for name in names { unlink(directory + "/" + name) }
        for folder in folders.sorted(by: >) where folder != directory { rmdir(folder) }
        names.removeAll()
    }
}
