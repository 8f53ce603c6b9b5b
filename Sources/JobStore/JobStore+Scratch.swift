import Foundation

/// A job directory made again for a job this store did not receive, or lost: with `--objects` the data
/// directory is scratch, and a replica that claims a job stages its inputs and URLs from the bucket into
/// the directory made here. Blocking I/O: call on a thread pool.
extension JobStore {
    /// Makes the job's directory when it is missing (built aside and renamed in whole, as `create` does),
    /// with `record` as its `job.json` and empty `inputs/` and `outputs/`; in a directory that exists, makes
    /// whichever of those is missing. Returns whether the directory was missing.
    @discardableResult
    public func adopt(_ record: JobRecord) throws -> Bool {
        try Self.requireValidID(record.id)
        let final = jobDirectory(id: record.id)
        let data = try JobJSON.fileData(record, pretty: true, what: "job \(record.id)")
        guard !FileIO.isDirectory(final) else {
            try FileIO.makeDirectory(final + "/inputs", mayExist: true)
            try FileIO.makeDirectory(final + "/outputs", mayExist: true)
            if access(recordPath(id: record.id), F_OK) != 0 {
                try FileIO.writeAtomically(data, to: recordPath(id: record.id))
            }
            return false
        }
        let staging = jobsDirectory + "/" + Self.stagingPrefix + record.id
        try? FileIO.remove(staging)
        try FileIO.makeDirectory(staging)
        do {
            try FileIO.makeDirectory(staging + "/inputs")
            try FileIO.makeDirectory(staging + "/outputs")
            try FileIO.writeAtomically(data, to: staging + "/job.json")
            try FileIO.syncDirectory(staging)
            try FileIO.rename(staging, to: final)
        } catch {
            try? FileIO.remove(staging)
            throw error
        }
        try FileIO.syncDirectory(jobsDirectory)
        return true
    }

    /// Writes the job's URLs as read back from the bucket, unless its directory has them already.
    public func restoreEgressTargets(id: String, _ targets: EgressTargets) throws {
        try Self.requireValidID(id)
        guard !targets.isEmpty, access(egressPath(id: id), F_OK) != 0 else { return }
        try writeEgressTargets(targets, into: jobDirectory(id: id))
    }

    /// Moves an upload still being written into the job as input `name` (its descriptor stays open and
    /// writes on where the file lands), replacing what an earlier, interrupted attempt left under that
    /// name: the job's worker reads it as it grows while it is staged from the bucket. The upload is
    /// discarded on failure.
    public func placeGrowingInput(id: String, name: String, upload: UploadFile) throws {
        do {
            try Self.requireValidID(id)
            guard Self.isValidFileName(name) else { throw StoreError.invalidFileName(name) }
            guard FileIO.isDirectory(jobDirectory(id: id)) else { throw StoreError.notFound(id) }
            try FileIO.rename(upload.path, to: inputPath(id: id, name: name))
        } catch {
            upload.discard()
            throw error
        }
    }

    /// Removes input `name` of job `id`, one staged from the bucket that is not the file the job recorded
    /// (or not all of it), so that no later attempt takes it for the input.
    public func removeInput(id: String, name: String) {
        guard Self.isValidID(id), Self.isValidFileName(name) else { return }
        unlink(inputPath(id: id, name: name))
    }

    /// Whether input `name` of job `id` is in its directory with `size` bytes.
    public func hasInput(id: String, name: String, size: Int64) -> Bool {
        var status = stat()
        return stat(inputPath(id: id, name: name), &status) == 0 && Int64(status.st_size) == size
    }
}
