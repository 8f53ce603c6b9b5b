import Foundation
import JobStore
import MediadHTTP
import MediadRuntime
import NIOCore

/// The Server-Sent Events of `GET /events` (every job the caller may see) and `GET /jobs/{id}/events`
/// (one job): each change of a job is an `event: job` whose data is the job's JSON as `GET /jobs/{id}`
/// answers it; a job deleted or swept is an `event: deleted` with its id.
///
/// The stream wakes when the job index changes (`JobChanges`) and every `progressInterval`, then compares
/// what the caller may see with what it last sent: only differences are written, progress only once it
/// has moved by `progressStep`, so a slow reader gets the latest state rather than a backlog, and memory
/// stays one record per job followed. A comment after `heartbeat` without an event (`--event-heartbeat`)
/// keeps proxies from cutting the connection, finds a client that has gone, and lets `SendTimeout` find
/// one that has stopped reading. `GET /events` starts with nothing (the list
/// comes from `GET /jobs`); `GET /jobs/{id}/events` starts with the job as it is and ends once it has
/// sent a final state or the job's deletion. Every stream ends cleanly when the client closes it or the
/// server shuts down.
///
/// Each event's `id` is the time it was written, in milliseconds since 1970. A client reconnecting with
/// `Last-Event-ID` (as EventSource does on its own) to `GET /events` gets, before anything else, every
/// job that was not already final at that time: what it missed while away, but not the deletions, which leave no trace
/// (`GET /jobs` tells those). Record times may come from another replica's clock, so "at that time" is
/// read `resumeSlack` earlier.
struct JobEventStream: Sendable {
    static let progressInterval = Duration.seconds(1)
    static let progressStep = 0.01
    /// What a client waits before reconnecting, in milliseconds (the `retry` field).
    static let reconnectDelay = 3000
    /// How much earlier than a `Last-Event-ID` a job's last change still counts as missed.
    static let resumeSlack: TimeInterval = 5

    let jobs: JobService
    let encodedJobs: EncodedJobCache
    /// The one job followed, or nil for every job.
    let jobID: String?
    let maySee: @Sendable (JobRecord) -> Bool
    /// The time of the last event a reconnecting client saw (its `Last-Event-ID`), or nil.
    let resumingAfter: Date?
    /// The longest the stream goes without writing: then a heartbeat comment.
    let heartbeat: Duration

    func run(_ writer: StreamWriter) async {
        let (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        jobs.records.changes.subscribe(continuation)
        // A resumed stream sends what its client missed at once, not at the next change or tick.
        if resumingAfter != nil { continuation.yield() }
        writer.onEnd { continuation.finish() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: min(Self.progressInterval, heartbeat))
                    continuation.yield()
                }
            }
            try? await send(wakeups, to: writer)
            continuation.finish()
            group.cancelAll()
        }
    }

    /// Writes events until the wake-ups end (client gone, shutdown) or a followed job is done with.
    private func send(_ wakeups: AsyncStream<Void>, to writer: StreamWriter) async throws {
        try await writer.write("retry: \(Self.reconnectDelay)\n\n")
        var lastWrite = ContinuousClock.now
        var generation = jobs.records.changes.generation
        var sent = Dictionary(uniqueKeysWithValues: await visible().map { ($0.id, $0) })
        if let resumingAfter, jobID == nil {
            let seen = resumingAfter.addingTimeInterval(-Self.resumeSlack)
            sent = sent.filter { _, record in record.finishedAt.map { $0 < seen } ?? false }
            generation = jobs.records.changes.generation &- 1
        }
        if let jobID {
            guard let record = sent[jobID] else { return try await writer.write(Self.deleted(jobID)) }
            try await writer.write(try event(record))
            if record.state.isTerminal { return }
        }
        for await _ in wakeups {
            let now = jobs.records.changes.generation
            let anyRunning = sent.values.contains { !$0.state.isTerminal }
            if now != generation || anyRunning || !jobs.indexIsComplete {
                generation = now
                let current = Dictionary(uniqueKeysWithValues: await visible().map { ($0.id, $0) })
                var text = ""
                for (id, record) in current where Self.differs(sent[id], record) {
                    text += try event(record)
                    sent[id] = record
                }
                for id in sent.keys where current[id] == nil {
                    text += Self.deleted(id)
                    sent[id] = nil
                }
                if !text.isEmpty {
                    try await writer.write(text)
                    lastWrite = .now
                }
                if let jobID, sent[jobID]?.state.isTerminal ?? true { return }
            }
            if ContinuousClock.now - lastWrite >= heartbeat {
                try await writer.write(": heartbeat\n\n")
                lastWrite = .now
            }
        }
    }

    /// The records followed, with live progress.
    private func visible() async -> [JobRecord] {
        if let jobID {
            let record = jobs.indexIsComplete ? jobs.records.current(jobID) : await jobs.record(jobID)
            return record.map { maySee($0) ? [$0] : [] } ?? []
        }
        let all = jobs.indexIsComplete ? jobs.records.allCurrent : await jobs.allRecords()
        return all.filter(maySee)
    }

    /// Whether `record` is worth an event after `previous`: any change but progress, or progress that
    /// moved by a step.
    static func differs(_ previous: JobRecord?, _ record: JobRecord) -> Bool {
        guard var previous else { return true }
        let moved = abs(previous.progress - record.progress) >= progressStep
        previous.progress = record.progress
        return previous != record || moved
    }

    private func event(_ record: JobRecord) throws -> String {
        var json = String(buffer: try encodedJobs.body(for: record))
        while json.last == "\n" { json.removeLast() }
        return "id: \(Self.eventID())\nevent: job\ndata: \(json)\n\n"
    }

    private static func deleted(_ id: String) -> String {
        "id: \(eventID())\nevent: deleted\ndata: {\"id\":\"\(id)\"}\n\n"
    }

    /// The `id` of an event written now.
    private static func eventID() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The time a `Last-Event-ID` header names, or nil when it is absent or not an id of ours.
    static func resumeTime(from lastEventID: String?) -> Date? {
        guard let lastEventID, let milliseconds = Int64(lastEventID), milliseconds > 0 else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
