import Foundation
import JobStore
import MediaCore
import MediaJobs

extension JobService {
    /// Fetches the job's inputs that come from URLs and are not fetched yet, the first phase of a run, in a
    /// fetch slot rather than a worker: each into the job's `inputs/`, screened like an upload, listed in
    /// `inputs` with its size and SHA-256 (and, with `--objects`, put into the bucket, so that a run on
    /// another replica stages it rather than fetching it again), its source marked `fetched`. Returns the
    /// record the run goes on with. Stopping the run (cancel, shutdown) stops the fetch under way. All of
    /// them must arrive within the fetcher's `timeLimit` (`input_timeout`), each at the minimum rate
    /// (`input_too_slow`).
    ///
    /// A failure marks the source `failed` with the last status seen and throws the input's `MediaError`;
    /// the partial input is gone.
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
        let deadline = fetcher.deadline()
        for source in unfetched {
            guard let url = targets.inputs[source.name] else {
                throw MediaError(.internalError, "the URL of input \(source.name) is missing from egress.json")
            }
            log.write(
                "fetching input \(source.name) from \(source.url) (time limit "
                    + "\(String(format: "%g", fetcher.timeLimit)) s for the job's URL inputs)")
            var status: Int? = nil
            do {
                let fetched = try await run.untilStopped(doing: "fetching the input") {
                    try await fetcher.fetch(url, before: deadline)
                }
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
                if let objects {
                    var stored = fetched.upload
                    stored.path = store.inputPath(id: id, name: source.name)
                    try await objects.putInput(job: id, name: source.name, file: stored)
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

    /// Suspends until the run `id`, its inputs fetched, has a worker, or the calling task is cancelled.
    func waitForWorker(_ id: String) async {
        await runs.waitForWorker(id, self)
    }

    /// The run `id` no longer waits for a worker.
    func stopWaitingForWorker(_ id: String) {
        runs.stopWaiting(id)
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
