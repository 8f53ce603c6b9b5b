import Foundation

/// What becomes of a job found on disk when the server starts: a job that was `running` was cut short by
/// the restart (a crash, a kill, a deploy) and is run again, up to a limit, so that a job that crashes the
/// server every time it runs cannot keep bringing it down.
public enum Recovery {
    /// The record as the restarted server should hold it.
    ///
    /// `queued` and terminal jobs are unchanged. A `running` job goes back to `queued` with progress 0 and
    /// no start time — `attempts` is left alone, since the server counts a run when it starts one — unless
    /// it has already had `maxAttempts` runs: then it fails with code `interrupted`, finished at `now`. A
    /// job queued or running while its input still arrived (`arrivingInputs`) fails so too: the request
    /// that carried the input ended with the server, and the input is not whole.
    public static func recover(_ record: JobRecord, maxAttempts: Int = 3, now: Date) -> JobRecord {
        var recovered = record
        if !record.state.isTerminal, record.arrivingInputs != nil {
            recovered.state = .failed
            recovered.finishedAt = now
            recovered.error = JobError(
                code: "interrupted",
                message: "the server restarted while the job's input was still arriving: its upload did not end")
            return recovered
        }
        guard record.state == .running else { return record }
        if record.attempts >= maxAttempts {
            recovered.state = .failed
            recovered.finishedAt = now
            recovered.error = JobError(
                code: "interrupted",
                message: "the job was interrupted \(record.attempts) times (server restarts) and was given up")
        } else {
            recovered.state = .queued
            recovered.progress = 0
            recovered.startedAt = nil
            recovered.markUnfetchedSources(.pending)
        }
        return recovered
    }
}
