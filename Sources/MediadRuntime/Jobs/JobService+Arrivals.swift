import Foundation
import JobStore
import Logging
import MediaCore

extension JobService {
    /// `enqueue` of a job whose input is still arriving (its record lists it in `arrivingInputs`): the job
    /// may start before the body has ended, and ends only once `inputArrived` or `inputFailed` settled it.
    package func enqueueArriving(_ record: JobRecord) async throws {
        arrivals[record.id] = InputArrival()
        do {
            try await enqueue(record)
        } catch {
            arrivals[record.id] = nil
            throw error
        }
    }

    /// The body carrying input `name` of job `id` ended and passed its checks: the input moves from
    /// `arriving_inputs` to `inputs`, with its size and SHA-256, and the job may end. The request's `hold`
    /// on its owner's quota is released as the record takes the bytes over, so that a run whose allowance
    /// is measured then does not count them twice.
    package func inputArrived(_ id: String, name: String, file: UploadedFile, releasing hold: StorageHold?)
        async throws
    {
        defer { hold?.release() }
        guard let arrival = arrivals.removeValue(forKey: id) else { return }
        defer { arrival.settle(nil) }
        guard var record = records[id], !record.state.isTerminal else { return }
        record.arrivingInputs?.removeAll { $0.name == name }
        if record.arrivingInputs?.isEmpty == true { record.arrivingInputs = nil }
        record.inputs.append(JobInput(name: name, size: file.size, sha256: file.sha256))
        record.inputs.sort { $0.name < $1.name }
        hold?.release()
        records[id] = record
        try await save(record)
    }

    /// The body carrying job `id`'s input failed (cut, refused, over a limit): the job ends `failed` with
    /// the upload's error, at once when queued, once its worker is stopped when running, and leaves no
    /// output.
    package func inputFailed(_ id: String, _ failure: JobError) async {
        guard let arrival = arrivals.removeValue(forKey: id) else { return }
        arrival.settle(failure)
        switch records[id]?.state {
        case .queued?:
            do {
                try await finish(id, state: .failed, error: failure)
            } catch {
                events.logger.error(
                    "recording the failed upload of a job failed",
                    metadata: ["job_id": .string(id), "error": .string("\(error)")])
            }
        case .running?: running[id]?.requestStop(.inputFailed)
        default: break
        }
    }

    /// The run's `outcome` once the job's input has arrived: the error of `failing` (the upload, or the
    /// staging from the bucket), its outputs removed and the failure written to its log, when it failed;
    /// `cancelled` when the job was cancelled first.
    func gate(
        _ id: String, _ outcome: Result<JobExecutor.Outcome, Error>, on arrival: InputArrival,
        failing what: String = "the upload of its input"
    ) async -> Result<JobExecutor.Outcome, Error> {
        guard let failure = await arrival.settled() else { return outcome }
        let cancelled = failure.code == MediaError.Code.cancelled.rawValue
        try? await io { [store] in
            try store.removeOutputs(id: id)
            guard !cancelled else { return }
            let log = JobLog(path: store.logPath(id: id))
            log.write("failed: \(what) failed: \(failure.code): \(failure.message)")
            log.close()
        }
        return .failure(MediaError(MediaError.Code(rawValue: failure.code), failure.message))
    }
}
