import Foundation

/// A job's `runs` file: `<replica> <attempt> <time> start` and `<replica> <attempt> <time> end <outcome>`.
struct RunLog {
    struct Run {
        var replica: String
        var attempt: Int
        var start: Date
        var end: Date?
        var outcome: String?
    }

    var runs: [Run] = []

    init(path: String) throws {
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 4, let attempt = Int(words[1]), let time = Self.date(words[2]) else {
                runs.append(Run(replica: "unparsable: \(line)", attempt: 0, start: .distantFuture))
                continue
            }
            if words[3] == "start" {
                runs.append(Run(replica: words[0], attempt: attempt, start: time))
            } else if let index = runs.lastIndex(where: {
                $0.replica == words[0] && $0.attempt == attempt && $0.end == nil
            }) {
                runs[index].end = time
                runs[index].outcome = words.count > 4 ? words[4] : "?"
            } else {
                runs.append(Run(replica: "end without start: \(line)", attempt: attempt, start: .distantFuture))
            }
        }
    }

    /// The runs file once its last run has ended, or as it is after `seconds`. A replica notes a run's end
    /// just after saving the record that says so (see `LeaseScheduler.runEnded`), so a test that saw the
    /// record end may read the file a moment before the line lands.
    static func waitingForTheEnd(path: String, seconds: Double = 5) throws -> RunLog {
        let deadline = Date().addingTimeInterval(seconds)
        var log = try RunLog(path: path)
        while log.runs.last?.end == nil && Date() < deadline {
            usleep(50_000)
            log = try RunLog(path: path)
        }
        return log
    }

    /// What breaks "each job ran on one replica at a time and ended once": overlapping runs, a run left
    /// open by a replica that was not killed, more than one run reaching an end, a run after the end.
    /// A replica notes a run's end after saving the record that says so; `recorded` is the replica and
    /// attempt of the saved record's end, which stands for the run the killed replica left open in between.
    func problems(killed: String, killedAt: Date, recorded: (replica: String, attempt: Int)? = nil) -> [String] {
        var problems: [String] = []
        let ordered = runs.sorted { $0.start < $1.start }
        for (run, next) in zip(ordered, ordered.dropFirst()) {
            if run.end == nil && run.replica != killed { problems.append("\(run) never ended") }
            // A run that ended `lost` was taken over: its lease expired (the replica stalled past the TTL) and
            // the next run claimed the job, and its replica noted the end only on learning that, so after
            // the next run's start by definition. What it did meanwhile its lease no longer covered, and no
            // save of it was taken; any other overlap is two replicas running the job at once.
            let end = run.end ?? killedAt
            if end > next.start && run.outcome != "lost" { problems.append("\(run) overlaps \(next)") }
            if ["succeeded", "failed", "cancelled"].contains(run.outcome ?? "") {
                problems.append("\(next) after the end")
            }
        }
        let endedBeforeTheKill: (Run) -> Bool = { run in
            run.end == nil && run.replica == killed && recorded?.replica == killed && recorded?.attempt == run.attempt
        }
        let ends = ordered.filter {
            ["succeeded", "failed", "cancelled"].contains($0.outcome ?? "") || endedBeforeTheKill($0)
        }
        if ends.count != 1 {
            problems.append("not exactly one run ended the job: \(ordered)")
        }
        return problems
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
