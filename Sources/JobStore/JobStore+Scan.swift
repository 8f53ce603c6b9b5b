import Foundation

/// What `JobStore.loadAll()` found: the jobs it could read, the ones it could not, and the leftovers of
/// interrupted work it removed (for the server's start-up log).
public struct StoreScan: Sendable {
    /// Every readable job, sorted by id.
    public var records: [JobRecord]
    /// Job directories whose `job.json` is missing or does not decode. They are left on disk untouched
    /// for an operator to look at; the server does not list or run them.
    public var unreadable: [UnreadableJob]
    /// Paths of the leftovers removed: staging and half-deleted job directories, partial uploads, hidden
    /// temporary files in job directories and anywhere in their output trees.
    public var removed: [String]
}

/// A job directory the store could not read, and why.
public struct UnreadableJob: Sendable, Equatable {
    public var id: String
    public var error: StoreError
}

extension JobStore {
    /// Reads every `jobs/<id>/job.json`, removing on the way what a crash leaves behind: `jobs/.new-*`
    /// (half-created jobs), `jobs/.deleted-*` (half-deleted ones), every file in `uploads/`, and hidden
    /// (dot) files in job and `outputs/` directories (temporary records, partial outputs).
    ///
    /// Meant for start-up, before the server accepts requests: run while uploads, creates or jobs are under
    /// way, it would remove their files. A record that cannot be read does not stop the scan; it is
    /// reported in `unreadable`. Entries of `jobs/` that are neither job ids nor leftovers are ignored.
    ///
    /// In a store shared by several replicas, the others' uploads, staged jobs and partial outputs are
    /// under way: `keepingLeftoversYoungerThan` spares every leftover modified that recently.
    public func loadAll(keepingLeftoversYoungerThan age: TimeInterval = 0) throws -> StoreScan {
        let cutoff = age > 0 ? Date().addingTimeInterval(-age) : nil
        var scan = StoreScan(records: [], unreadable: [], removed: [])
        for name in try FileIO.entries(uploadsDirectory) {
            try removeLeftover(uploadsDirectory + "/" + name, olderThan: cutoff, into: &scan)
        }
        for name in try FileIO.entries(jobsDirectory).sorted() {
            let path = jobsDirectory + "/" + name
            if name.hasPrefix(Self.stagingPrefix) || name.hasPrefix(Self.deletedPrefix) {
                try removeLeftover(path, olderThan: cutoff, into: &scan)
                continue
            }
            guard Self.isValidID(name), FileIO.isDirectory(path) else { continue }
            try removeHiddenFiles(in: path, olderThan: cutoff, into: &scan)
            try removeHiddenFiles(in: outputDirectory(id: name), olderThan: cutoff, into: &scan, recursively: true)
            do {
                if let record = try load(id: name) {
                    scan.records.append(record)
                } else {
                    scan.unreadable.append(
                        UnreadableJob(
                            id: name, error: StoreError(code: .corruptRecord, message: "\(path) has no job.json")))
                }
            } catch let error as StoreError {
                scan.unreadable.append(UnreadableJob(id: name, error: error))
            }
        }
        if !scan.removed.isEmpty {
            try FileIO.syncDirectory(uploadsDirectory)
            try FileIO.syncDirectory(jobsDirectory)
        }
        return scan
    }

    /// Removes the hidden entries of `directory`, and `recursively` those of its folders too (outputs may
    /// be a tree: `720p/.seg_00001.m4s.partial-…`).
    private func removeHiddenFiles(
        in directory: String, olderThan cutoff: Date?, into scan: inout StoreScan, recursively: Bool = false
    ) throws {
        guard FileIO.isDirectory(directory) else { return }
        for name in try FileIO.entries(directory) {
            let path = directory + "/" + name
            if name.hasPrefix(".") {
                try removeLeftover(path, olderThan: cutoff, into: &scan)
            } else if recursively, FileIO.isDirectory(path) {
                try removeHiddenFiles(in: path, olderThan: cutoff, into: &scan, recursively: true)
            }
        }
    }

    /// Removes `path` unless it was modified or renamed (its ctime) after `cutoff`. With a cutoff (a shared
    /// store) a failed removal is skipped: another replica may be removing the same leftover.
    private func removeLeftover(_ path: String, olderThan cutoff: Date?, into scan: inout StoreScan) throws {
        guard let cutoff else {
            try FileIO.remove(path)
            return scan.removed.append(path)
        }
        var info = stat()
        guard lstat(path, &info) == 0,
            Double(max(info.st_mtim.tv_sec, info.st_ctim.tv_sec)) < cutoff.timeIntervalSince1970,
            (try? FileIO.remove(path)) != nil
        else { return }
        scan.removed.append(path)
    }
}
