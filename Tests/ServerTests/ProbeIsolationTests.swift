import Foundation
import Synchronization
import TestSupport
import Testing

/// `/probe` runs its child under the jobs' limits, waits for it without a thread of the shared pool, and
/// turns away probes beyond `--max-probes` at once.
@Suite(.serialized) struct ProbeIsolationTests {
    /// A fragment run declaring 32 million samples (`MemoryBomb`) makes libav's MP4 reader ask for about
    /// 1 GB of index. Under `--job-memory 512M` the probe child cannot map that: the request fails with
    /// `out_of_memory` while the child stays under the limit and the server's memory stays flat.
    @Test func probeChildStaysWithinTheJobMemoryLimit() throws {
        let scratch = try Scratch("probe-memory")
        let bomb = try MemoryBomb.fragmentRun(in: scratch)
        let server = try ServerProcess(["--job-memory", "512M"])
        _ = try Curl.run(server.url("/probe"), ["-T", try Fixtures.h264AacMP4()])
        let serverBefore = server.memoryKiB()
        let peak = Mutex(0)
        let done = Atomic(false)
        let watcher = Thread {
            while !done.load(ordering: .relaxed) {
                for child in ChildProcesses.children(of: server.pid, running: "probe-worker") {
                    let used = Self.statusKiB(child, "VmHWM")
                    peak.withLock { $0 = max($0, used) }
                }
                usleep(5000)
            }
        }
        watcher.start()
        // The child lives a fraction of a second: a loaded run once never saw it, so the probe is asked for
        // again (up to five times) until the watcher has.
        var probe = try Curl.run(server.url("/probe"), ["-T", bomb, "--max-time", "60"])
        for _ in 0..<4 where peak.withLock({ $0 }) == 0 {
            probe = try Curl.run(server.url("/probe"), ["-T", bomb, "--max-time", "60"])
        }
        done.store(true, ordering: .relaxed)
        let childPeak = peak.withLock { $0 }
        print(
            "probe of a 32M-sample fragment run: \(probe.status) \(probe.errorCode ?? "-") in \(probe.seconds) s, child peak \(childPeak / 1024) MiB"
        )
        #expect(childPeak > 0, "the probe child was seen")
        #expect(childPeak < 512 << 10, "the probe child reached \(childPeak / 1024) MiB")
        #expect(probe.status == 422, "\(probe.status) \(probe.text)")
        #expect(probe.errorCode == "out_of_memory", "\(probe.text)")
        #expect(server.memoryKiB() < serverBefore + 64 << 10, "the server grew from \(serverBefore) KiB")
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }

    /// Four probes held in their children (stopped with SIGSTOP) used to hold both threads of a two-core
    /// server's blocking pool, so a small job submission waited until the probes' 30 s watchdog killed
    /// them. Now the submission is answered at once, a fifth probe gets 429 with `Retry-After`, and a
    /// probe child that crashes fails its request with `worker_crashed`.
    @Test func heldProbesNeitherStallSubmissionsNorExceedTheCap() throws {
        let server = try ServerProcess(environment: ["MEDIAD_MAX_PROBES": "4"])
        let input = try Fixtures.h264AacMP4()
        let answers = Mutex<[String]>([])
        let group = DispatchGroup()
        var launched = 0
        func launch() {
            launched += 1
            group.enter()
            Thread {
                let reply = try? Curl.run(server.url("/probe"), ["-T", input, "--max-time", "60"])
                answers.withLock { $0.append("\(reply?.status ?? 0) \(reply?.errorCode ?? "-")") }
                group.leave()
            }.start()
        }
        for _ in 0..<4 { launch() }
        var stopped: Set<Int32> = []
        let deadline = Date().addingTimeInterval(20)
        while stopped.count < 4, Date() < deadline {
            // Only probe children, and only those the stop reached alive: one that exited before it is a
            // zombie (kill still answers 0) whose request was answered and whose slot is free.
            for child in ChildProcesses.children(of: server.pid, running: "probe-worker")
            where !stopped.contains(child) {
                if ChildProcesses.stop(child) { stopped.insert(child) }
            }
            // A probe that ended before it could be held is replaced, so that four stay under way (a child
            // lives for some milliseconds, and a loaded run once missed one).
            if launched - answers.withLock({ $0.count }) < 4, launched < 16 { launch() }
            usleep(1000)
        }
        defer { for child in stopped { kill(child, SIGCONT) } }
        #expect(stopped.count == 4, "four probe children were held")

        let submission = try Curl.run(
            server.url("/jobs/remux?format=mkv"), ["-T", input, "--max-time", "60"])
        print("job submission beside four held probes: \(submission.status) in \(submission.seconds) s")
        #expect(submission.status == 202, "\(submission.text)")

        let refused = try Curl.run(server.url("/probe"), ["-T", input, "--max-time", "10"])
        #expect(refused.status == 429, "\(refused.status) \(refused.text)")
        #expect(refused.errorCode == "too_many_probes")
        #expect(Int(refused.headers["retry-after"] ?? "") ?? 0 >= 1)

        // One probe crashes when it resumes: that request alone fails, as a job's would.
        kill(try #require(stopped.first), SIGSEGV)
        for child in stopped { kill(child, SIGCONT) }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(
            answers.withLock { $0 }.sorted() == Array(repeating: "200 -", count: launched - 1) + ["422 worker_crashed"])
        #expect(try Curl.run(server.url("/probe"), ["-T", input]).status == 200, "the slots were given back")
    }

    // MARK: Helpers

    /// A `/proc/<pid>/status` field in KiB (0 once the process is gone).
    static func statusKiB(_ pid: Int32, _ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
