import Foundation

/// Creating, saving, reading and deleting one job. Blocking I/O: call on a thread pool.
extension JobStore {
    /// A new, empty upload in `uploads/` for a request body to stream into.
    public func makeUpload() throws -> UploadFile {
        try UploadFile(directory: uploadsDirectory, watermark: watermark)
    }

    /// Stores a new job: its record, its inputs, which are moved (renamed) out of `uploads/` into
    /// `inputs/<name>`, and the URLs it fetches from or delivers to (`egress.json`), when it has any.
    ///
    /// The directory is built as `jobs/.new-<id>`, synced, then renamed to `jobs/<id>` and `jobs/` synced,
    /// so a job appears complete or not at all. The store takes the uploaded files either way: when
    /// `create` fails they are removed. An input still `arriving` (being written at `path`, by a descriptor
    /// that stays open) is moved in alike, to be written on where it lands.
    public func create(
        _ record: JobRecord, inputs: [String: UploadedFile], arriving: (name: String, path: String)? = nil,
        egress: EgressTargets = EgressTargets()
    ) throws {
        var moved = inputs.mapValues(\.path)
        if let arriving { moved[arriving.name] = arriving.path }
        do {
            try Self.requireValidID(record.id)
            for name in moved.keys where !Self.isValidFileName(name) { throw StoreError.invalidFileName(name) }
            let final = jobDirectory(id: record.id)
            guard access(final, F_OK) != 0 else {
                throw StoreError(code: .alreadyExists, message: "job \(record.id) already exists")
            }
            let staging = jobsDirectory + "/" + Self.stagingPrefix + record.id
            try FileIO.makeDirectory(staging)
            do {
                try FileIO.makeDirectory(staging + "/inputs")
                try FileIO.makeDirectory(staging + "/outputs")
                for (name, path) in moved.sorted(by: { $0.key < $1.key }) {
                    try FileIO.rename(path, to: staging + "/inputs/" + name)
                }
                if !egress.isEmpty { try writeEgressTargets(egress, into: staging) }
                try FileIO.writeAtomically(
                    try JobJSON.fileData(record, pretty: true, what: "job \(record.id)"), to: staging + "/job.json")
                try FileIO.syncDirectory(staging + "/inputs")
                try FileIO.syncDirectory(staging + "/outputs")
                try FileIO.syncDirectory(uploadsDirectory)
                try FileIO.syncDirectory(staging)
                try FileIO.rename(staging, to: final)
            } catch {
                try? FileIO.remove(staging)
                throw error
            }
            try FileIO.syncDirectory(jobsDirectory)
        } catch {
            for path in moved.values { unlink(path) }
            throw error
        }
    }

    /// Replaces the job's `job.json` atomically (temporary file, fsync, rename, fsync of the directory).
    /// Throws `not_found` when the job directory is gone (deleted meanwhile).
    public func save(_ record: JobRecord) throws {
        try Self.requireValidID(record.id)
        guard FileIO.isDirectory(jobDirectory(id: record.id)) else { throw StoreError.notFound(record.id) }
        try FileIO.writeAtomically(
            try JobJSON.fileData(record, pretty: true, what: "job \(record.id)"), to: recordPath(id: record.id))
    }

    /// The job's record; nil when there is no such job (or the id is not one). Throws `corrupt_record` when
    /// `job.json` does not decode or names another job than its directory.
    public func load(id: String) throws -> JobRecord? {
        guard Self.isValidID(id) else { return nil }
        let path = recordPath(id: id)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch CocoaError.fileReadNoSuchFile {
            return nil
        } catch {
            throw StoreError(code: .ioError, message: "cannot read \(path): \(error.localizedDescription)")
        }
        let record: JobRecord
        do {
            record = try JobJSON.decoder().decode(JobRecord.self, from: data)
        } catch {
            throw StoreError(code: .corruptRecord, message: "\(path) does not decode: \(error)")
        }
        // The directory names the job: a record naming another (edited or copied by hand) would make every
        // later save, delete and output path point at a directory that is not its own.
        guard record.id == id else {
            throw StoreError(code: .corruptRecord, message: "\(path) names job \(record.id), not \(id)")
        }
        return record
    }

    /// Removes every file the job's run wrote to its `outputs/`, which stays, empty: the outputs of a run
    /// that will not be listed (they passed the token's quota).
    public func removeOutputs(id: String) throws {
        try Self.requireValidID(id)
        let directory = outputDirectory(id: id)
        guard FileIO.isDirectory(directory) else { return }
        for name in try FileIO.entries(directory) { try FileIO.remove(directory + "/" + name) }
    }

    /// Removes the job and all its files. The directory is first renamed to `jobs/.deleted-<id>` (and
    /// `jobs/` synced), so from then on the job is gone even if the recursive removal is cut short; what a
    /// crash or a failed removal leaves is cleared by the next `loadAll()`.
    public func delete(id: String) throws {
        try Self.requireValidID(id)
        let doomed = jobsDirectory + "/" + Self.deletedPrefix + id
        if access(doomed, F_OK) == 0 { try FileIO.remove(doomed) }
        guard Foundation.rename(jobDirectory(id: id), doomed) == 0 else {
            if errno == ENOENT { throw StoreError.notFound(id) }
            throw StoreError.io("cannot rename away", jobDirectory(id: id))
        }
        try FileIO.syncDirectory(jobsDirectory)
        try FileIO.remove(doomed)
    }

    /// The ids of the job directories last changed before `cutoff`: with a database, those it does not
    /// name are left by a publication whose answer never came, or a sweep cut short.
    public func jobIDs(changedBefore cutoff: Date) throws -> [String] {
        guard FileIO.isDirectory(jobsDirectory) else { return [] }
        return try FileIO.entries(jobsDirectory).filter { name in
            guard Self.isValidID(name) else { return false }
            var info = stat()
            return lstat(jobsDirectory + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
                && Double(info.st_mtim.tv_sec) < cutoff.timeIntervalSince1970
        }
    }
}
