import Foundation

/// Leases, cancel requests and the run log of jobs in a store shared by several replicas (see `Lease`).
/// Blocking I/O: call on a thread pool.
extension JobStore {
    static let cancelFileName = "cancel"
    static let runsFileName = "runs"

    /// The job's newest lease; nil when it was never claimed. Throws `not_found` when the job is gone.
    ///
    /// A claim removes the previous generation's file right after linking the next, so a file listed a
    /// moment ago may be gone when read: the listing is then taken again (a few times, since a client's
    /// cached listing, NFS's for one, may go on showing the removed file for a while).
    public func currentLease(id: String) throws -> Lease? {
        try Self.requireValidID(id)
        let directory = jobDirectory(id: id)
        for attempt in 0..<20 {
            guard FileIO.isDirectory(directory) else { throw StoreError.notFound(id) }
            guard let generation = try FileIO.entries(directory).compactMap(Lease.generation(ofFileName:)).max()
            else { return nil }
            do {
                return try readLease(directory + "/" + Lease.fileName(generation: generation))
            } catch let error as StoreError where error.code == .notFound {
                if attempt > 0 { usleep(10_000) }
            }
        }
        throw StoreError(code: .ioError, message: "the lease files of job \(id) keep vanishing while read")
    }

    /// Takes the next generation of the job's lease for `replica` until `now + ttl`, unless a live lease
    /// holds it. The winner of a race is decided by `link(2)`, which is atomic on NFS too; the previous
    /// generation's file is removed once a new one is taken.
    public func claim(id: String, replica: String, ttl: TimeInterval, now: Date = Date()) throws -> ClaimOutcome {
        let current: Lease?
        do {
            current = try currentLease(id: id)
        } catch let error as StoreError where error.code == .notFound {
            return .gone
        }
        if let current, current.isLive(at: now) { return .held(current) }
        let lease = Lease(generation: (current?.generation ?? 0) + 1, replica: replica, expiresAt: now + ttl)
        let directory = jobDirectory(id: id)
        let temporary = try writeTemporaryLease(lease, in: directory)
        defer { unlink(temporary) }
        let final = directory + "/" + Lease.fileName(generation: lease.generation)
        if link(temporary, final) != 0 {
            let failure = errno
            // NFS may report a link that a lost reply hid as failed: the link count tells.
            var info = stat()
            guard stat(temporary, &info) == 0, info.st_nlink == 2 else {
                if failure == EEXIST { return .lostRace }
                if failure == ENOENT { return .gone }
                throw StoreError.io("cannot link lease", final, errno: failure)
            }
        }
        if lease.generation > 1 { unlink(directory + "/" + Lease.fileName(generation: lease.generation - 1)) }
        return .claimed(lease)
    }

    /// Extends a lease we hold to `now + ttl` with the run's progress; nil when it is no longer ours
    /// (a newer generation exists: another replica took the job over) or the job is gone.
    public func renew(_ lease: Lease, id: String, ttl: TimeInterval, progress: Double, now: Date = Date()) throws
        -> Lease?
    {
        var renewed = lease
        renewed.expiresAt = now + ttl
        renewed.progress = progress
        return try replace(lease, id: id, with: renewed) ? renewed : nil
    }

    /// Gives up a lease we hold (it expires now), so another replica may claim the job at once.
    public func release(_ lease: Lease, id: String) throws {
        var released = lease
        released.expiresAt = Date(timeIntervalSince1970: 0)
        _ = try replace(lease, id: id, with: released)
    }

    /// True while `lease` is the job's newest one.
    public func holds(_ lease: Lease, id: String) -> Bool {
        (try? currentLease(id: id))?.generation == lease.generation
    }

    private func replace(_ lease: Lease, id: String, with updated: Lease) throws -> Bool {
        guard holds(lease, id: id) else { return false }
        let directory = jobDirectory(id: id)
        let temporary = try writeTemporaryLease(updated, in: directory)
        guard holds(lease, id: id) else {
            unlink(temporary)
            return false
        }
        try FileIO.rename(temporary, to: directory + "/" + Lease.fileName(generation: lease.generation))
        return holds(lease, id: id)
    }

    private func writeTemporaryLease(_ lease: Lease, in directory: String) throws -> String {
        let temporary = directory + "/.lease-" + Self.newID() + ".tmp"
        let data = try JobJSON.fileData(lease, what: "a lease")
        do {
            try FileIO.createSynced(data, at: temporary)
        } catch  where !FileIO.isDirectory(directory) {
            throw StoreError.notFound(URL(fileURLWithPath: directory).lastPathComponent)
        }
        return temporary
    }

    private func readLease(_ path: String) throws -> Lease {
        do {
            return try JobJSON.decoder().decode(Lease.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch CocoaError.fileReadNoSuchFile {
            throw StoreError.notFound(URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent)
        } catch {
            throw StoreError(code: .corruptRecord, message: "\(path) does not decode: \(error)")
        }
    }

    // MARK: Cancel requests and runs

    /// Asks the replica running the job to cancel it: a `cancel` file its heartbeat looks for.
    public func requestCancel(id: String) throws {
        try Self.requireValidID(id)
        let path = jobDirectory(id: id) + "/" + Self.cancelFileName
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            if errno == ENOENT { throw StoreError.notFound(id) }
            throw StoreError.io("cannot create", path)
        }
        close(fd)
    }

    /// True once someone asked for the job to be cancelled.
    public func isCancelRequested(id: String) -> Bool {
        Self.isValidID(id) && access(jobDirectory(id: id) + "/" + Self.cancelFileName, F_OK) == 0
    }

    /// Appends one line to the job's `runs` file, the record of where and when each run started and ended.
    public func appendRun(id: String, _ line: String) throws {
        try Self.requireValidID(id)
        let path = jobDirectory(id: id) + "/" + Self.runsFileName
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            if errno == ENOENT { throw StoreError.notFound(id) }
            throw StoreError.io("cannot open", path)
        }
        defer { close(fd) }
        try Data((line + "\n").utf8).withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
    }

    /// The ids of every job directory now in the store (for replicas to notice jobs others created).
    public func jobIDs() throws -> [String] {
        try FileIO.entries(jobsDirectory).filter(Self.isValidID)
    }
}
