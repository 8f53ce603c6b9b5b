import Foundation
import JobStore
import MediaCore
import NIOPosix

/// With `--objects` the data directory is scratch: a job claimed by a replica that did not receive it, or
/// whose directory was lost, gets its directory made again and its inputs and URLs staged from the bucket
/// before its run goes on.
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
    /// size (each GET into an upload file, checked against the recorded SHA-256 and size, then renamed
    /// into `inputs/`), and its URLs when it has some and the directory lacks them. Throws
    /// `input_object_missing`, `input_object_mismatch` or `storage_unavailable` for the job's failure, or
    /// `cancelled` when the run is stopped meanwhile.
    func stageInputs(_ record: JobRecord, _ run: RunningJob) async throws {
        guard let objects else { return }
        let (id, store, threadPool) = (record.id, self.store, self.threadPool)
        let missing = try await io {
            record.inputs.filter { !store.hasInput(id: id, name: $0.name, size: $0.size) }
        }
        let needsEgress = (record.inputSources?.isEmpty == false) || record.deliveries != nil
        let hasEgress = try await io { access(store.egressPath(id: id), F_OK) == 0 }
        guard !missing.isEmpty || (needsEgress && !hasEgress) else { return }
        let log = JobLog(path: store.logPath(id: id))
        defer { log.close() }
        try await run.untilStopped(doing: "staging the inputs from the bucket") {
            if needsEgress, !hasEgress {
                let targets = try await objects.egress(job: id)
                try await threadPool.runIfActive { try store.restoreEgressTargets(id: id, targets) }
            }
            for input in missing {
                let upload = try await threadPool.runIfActive { try store.makeUpload() }
                do {
                    let file = try await objects.stage(job: id, input: input, into: upload, threadPool: threadPool)
                    try await threadPool.runIfActive { try store.attachInput(id: id, name: input.name, upload: file) }
                    log.write("staged input \(input.name) from the bucket: \(file.size) bytes")
                } catch let error as MediaError {
                    log.write(
                        "staging input \(input.name) from the bucket failed: \(error.code.rawValue): \(error.message)")
                    throw error
                }
            }
        }
    }
}
