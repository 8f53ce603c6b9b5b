import Foundation
import JobStore
import MediaCore
import NIOPosix

/// With `--objects` the data directory is scratch: a job claimed by a replica that did not receive it, or
/// whose directory was lost, gets its directory made again and its inputs and URLs staged from the bucket
/// before or while its run goes on.
extension JobService {
    /// Makes the directory of the job about to run here when it is missing (or parts of it are), so that
    /// its record can be saved there; does nothing without `--objects`, where the directory is the job.
    /// Returns why the run cannot go on, if the directory cannot be made.
    func prepareScratch(_ record: JobRecord) async -> (any Error)? {
        guard objects != nil else { return nil }
        do {
            try await io { [store] in _ = try store.adopt(record) }
            return nil
        } catch {
            return error
        }
    }

    /// Stages from the bucket every input the job lists that is not in its directory with its recorded
    /// size, and its URLs when it has some and the directory lacks them. With `overlapping` (a worker that
    /// reads growing inputs) and without `--objects-stage-whole`, the inputs are placed in `inputs/` empty
    /// and the returned `InputStaging` GETs them while the worker runs; otherwise each is GET whole into an
    /// upload file, checked against the recorded SHA-256 and size, then renamed into `inputs/`, and nil
    /// is returned. Throws `input_object_missing`, `input_object_mismatch` or `storage_unavailable` for
    /// the job's failure, or `cancelled` when the run is stopped meanwhile.
    func stageInputs(_ record: JobRecord, _ run: RunningJob, overlapping: Bool) async throws -> InputStaging? {
        guard let objects else { return nil }
        let (id, store, threadPool) = (record.id, self.store, self.threadPool)
        let missing = try await io {
            record.inputs.filter { !store.hasInput(id: id, name: $0.name, size: $0.size) }
        }
        let needsEgress = (record.inputSources?.isEmpty == false) || record.deliveries != nil
        let hasEgress = try await io { access(store.egressPath(id: id), F_OK) == 0 }
        guard !missing.isEmpty || (needsEgress && !hasEgress) else { return nil }
        if needsEgress, !hasEgress {
            try await run.untilStopped(doing: "staging the job's URLs from the bucket") {
                let targets = try await objects.egress(job: id)
                try await threadPool.runIfActive { try store.restoreEgressTargets(id: id, targets) }
            }
        }
        guard !missing.isEmpty else { return nil }
        if overlapping, !objects.settings.stageWhole { return try await startStaging(missing, of: id, run) }
        let log = JobLog(path: store.logPath(id: id))
        defer { log.close() }
        try await run.untilStopped(doing: "staging the inputs from the bucket") {
            for input in missing {
                let upload = try await threadPool.runIfActive { try store.makeUpload() }
                do {
                    let file = try await objects.stage(
                        job: id, input: input, into: upload, threadPool: threadPool,
                        resumed: { log.write("the GET of input \(input.name) was cut: resumed at byte \($0)") })
                    try await threadPool.runIfActive { try store.attachInput(id: id, name: input.name, upload: file) }
                    log.write("staged input \(input.name) from the bucket: \(file.size) bytes")
                } catch let error as MediaError {
                    log.write(
                        "staging input \(input.name) from the bucket failed: \(error.code.rawValue): \(error.message)")
                    throw error
                }
            }
        }
        return nil
    }

    /// Places an empty upload file in `inputs/` for each of `missing` and starts their GETs, one after
    /// another, for the worker that is about to read them. A staging that fails removes the inputs and
    /// stops the run (`inputFailed`); one cancelled removes those not yet checked, even one whose last byte
    /// had arrived, so that a later run here stages them again rather than take them on their size alone.
    private func startStaging(_ missing: [JobInput], of id: String, _ run: RunningJob) async throws
        -> InputStaging
    {
        guard let objects else { throw MediaError(.internalError, "staging without --objects") }
        let (store, threadPool) = (self.store, self.threadPool)
        let uploads = try await io {
            var placed: [UploadFile] = []
            do {
                for input in missing {
                    let upload = try store.makeUpload()
                    try store.placeGrowingInput(id: id, name: input.name, upload: upload)
                    placed.append(upload)
                }
            } catch {
                for upload in placed { upload.discard() }
                throw error
            }
            return placed
        }
        let arrival = InputArrival()
        let task = Task {
            let log = JobLog(path: store.logPath(id: id))
            defer { log.close() }
            var failure: JobError? = nil
            var checked: Set<String> = []
            for (input, upload) in zip(missing, uploads) {
                guard failure == nil, !Task.isCancelled else {
                    upload.discard()
                    continue
                }
                log.write("staging input \(input.name) from the bucket while the job runs: \(input.size) bytes")
                do {
                    let file = try await objects.stage(
                        job: id, input: input, into: upload, threadPool: threadPool,
                        resumed: { log.write("the GET of input \(input.name) was cut: resumed at byte \($0)") })
                    log.write("staged input \(input.name) from the bucket: \(file.size) bytes")
                    checked.insert(input.name)
                } catch let error as MediaError {
                    log.write(
                        "staging input \(input.name) from the bucket failed: \(error.code.rawValue): \(error.message)")
                    failure = JobError(code: error.code.rawValue, message: error.message)
                } catch {
                    // Cancelled: the run was stopped for another reason and no longer reads the inputs.
                }
            }
            let unchecked = missing.filter { !checked.contains($0.name) }
            if failure != nil || !unchecked.isEmpty {
                let removed = failure != nil ? missing : unchecked
                try? await threadPool.runIfActive {
                    for input in removed { store.removeInput(id: id, name: input.name) }
                }
            }
            if failure != nil { run.requestStop(.inputFailed) }
            arrival.settle(failure)
        }
        return InputStaging(names: missing.map(\.name), arrival: arrival, task: task)
    }

    /// The run's `outcome` once the inputs it read while they were staged are settled: the staging's error
    /// (its outputs removed, the failure in its log) when an input did not arrive whole or is not the
    /// job's. A run stopped for another reason (cancelled, shut down, lease lost) gives the staging up and
    /// keeps its outcome.
    func settle(
        _ id: String, _ outcome: Result<JobExecutor.Outcome, Error>, staged staging: InputStaging, _ run: RunningJob
    ) async -> Result<JobExecutor.Outcome, Error> {
        switch run.stopReason {
        case .none, .inputFailed:
            return await gate(id, outcome, on: staging.arrival, failing: "staging its input from the bucket")
        case .cancelledByUser, .shutdown, .leaseLost:
            staging.task.cancel()
            return outcome
        }
    }
}
