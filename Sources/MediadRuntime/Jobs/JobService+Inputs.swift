import Foundation
import JobStore
import MediaCore
import MediaJobs

extension JobService {
    /// Fetches the job's inputs that come from URLs and are not fetched yet, the first phase of a run:
    /// each into the job's `inputs/`, screened like an upload, listed in `inputs` with its size and SHA-256,
    /// its source marked `fetched`. Returns the record the run goes on with. Stopping the run (cancel,
    /// shutdown) stops the fetch under way.
    ///
    /// A failure marks the source `failed` with the last status seen and throws the input's `MediaError`.
    func fetchInputs(_ started: JobRecord, _ run: RunningJob) async throws -> JobRecord {
        let id = started.id
        let unfetched = (started.inputSources ?? []).filter { $0.state != .fetched }
        guard !unfetched.isEmpty else { return started }
        guard let fetcher else {
            throw MediaError(.egressDisabled, "the job fetches its input from a URL; this server allows no egress")
        }
        let targets = try await io { [store] in try store.egressTargets(id: id) }
        let log = JobLog(path: store.logPath(id: id))
        defer { log.close() }
        for source in unfetched {
            guard let url = targets.inputs[source.name] else {
                throw MediaError(.internalError, "the URL of input \(source.name) is missing from egress.json")
            }
            log.write("fetching input \(source.name) from \(source.url)")
            var status: Int? = nil
            do {
                let fetched = try await Self.untilStopped(run) { try await fetcher.fetch(url) }
                status = fetched.status
                let part = started.kind.inputs.first { $0.storedName == source.name }
                try await io { [store, kind = started.kind] in
                    do {
                        try part?.screen(fetched.upload.path, for: kind)
                    } catch {
                        unlink(fetched.upload.path)
                        throw error
                    }
                    try store.attachInput(id: id, name: source.name, upload: fetched.upload)
                }
                log.write("fetched input \(source.name) from \(source.url): \(fetched.upload.size) bytes")
                try await update(id) { record in
                    record.inputs.removeAll { $0.name == source.name }
                    record.inputs.append(
                        JobInput(name: source.name, size: fetched.upload.size, sha256: fetched.upload.sha256))
                    record.inputs.sort { $0.name < $1.name }
                    record.setSource(source.name, state: .fetched, status: fetched.status)
                }
            } catch let failure as InputFetcher.Failure {
                log.write("fetching input \(source.name) from \(source.url) failed: \(failure.error.message)")
                try? await update(id) { $0.setSource(source.name, state: .failed, status: failure.status) }
                throw failure.error
            } catch {
                log.write("input \(source.name) from \(source.url) not taken: \(error)")
                try? await update(id) { [status] in $0.setSource(source.name, state: .failed, status: status) }
                throw error
            }
        }
        guard let ready = records[id] else { throw StoreError.notFound(id) }
        return ready
    }

    /// Changes the job's record in the index and saves it.
    private func update(_ id: String, _ change: (inout JobRecord) -> Void) async throws {
        guard var record = records[id] else { throw StoreError.notFound(id) }
        change(&record)
        records[id] = record
        try await save(record)
    }

    /// Runs `body` until it ends or the run is asked to stop: then `body` is cancelled and this throws
    /// `cancelled` (how the run ends then — cancelled, requeued — is the stop reason's to decide).
    private static func untilStopped<T: Sendable>(
        _ run: RunningJob, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                while run.stopReason == .none { try await Task.sleep(for: .milliseconds(100)) }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw MediaError(.cancelled, "stopped while fetching the input")
            }
            return value
        }
    }
}

extension JobRecord {
    fileprivate mutating func setSource(_ name: String, state: InputSource.State, status: Int?) {
        inputSources = inputSources?.map { source in
            guard source.name == name else { return source }
            var source = source
            source.state = state
            source.status = status ?? source.status
            return source
        }
    }
}
