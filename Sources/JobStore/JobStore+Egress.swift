import Foundation

/// The URLs of a job's inputs and outputs (`egress.json`) and the inputs fetched from them. Blocking I/O:
/// call on a thread pool.
extension JobStore {
    /// Where a job's whole input and output URLs are kept, apart from its record.
    public func egressPath(id: String) -> String { jobDirectory(id: id) + "/egress.json" }

    /// Writes `targets` as `egress.json` into the job directory being built at `directory`, readable by
    /// the server's user alone (the URLs' query strings may be presigned signatures).
    func writeEgressTargets(_ targets: EgressTargets, into directory: String) throws {
        let path = directory + "/egress.json"
        try FileIO.writeAtomically(try JobJSON.fileData(targets, what: path), to: path)
        guard chmod(path, 0o600) == 0 else { throw StoreError.io("cannot restrict", path) }
    }

    /// The job's input and output URLs; none for a job that has no `egress.json`.
    public func egressTargets(id: String) throws -> EgressTargets {
        try Self.requireValidID(id)
        let path = egressPath(id: id)
        guard let data = FileManager.default.contents(atPath: path) else { return EgressTargets() }
        do {
            return try JobJSON.decoder().decode(EgressTargets.self, from: data)
        } catch {
            throw StoreError(code: .corruptRecord, message: "\(path) does not decode: \(error)")
        }
    }

    /// Moves a finished upload (an input fetched from its URL) into the job as input `name`, replacing
    /// whatever an earlier, interrupted attempt left under that name. The upload is removed on failure.
    public func attachInput(id: String, name: String, upload: UploadedFile) throws {
        do {
            try Self.requireValidID(id)
            guard Self.isValidFileName(name) else { throw StoreError.invalidFileName(name) }
            guard FileIO.isDirectory(jobDirectory(id: id)) else { throw StoreError.notFound(id) }
            try FileIO.rename(upload.path, to: inputPath(id: id, name: name))
            try FileIO.syncDirectory(jobDirectory(id: id) + "/inputs")
        } catch {
            unlink(upload.path)
            throw error
        }
    }
}
