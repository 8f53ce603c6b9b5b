import Foundation
import Synchronization

/// The server's child processes as `/proc` shows them, for tests that must hold one (SIGSTOP) before it
/// can act. A child is chosen by its command (`worker`, `probe-worker`), never by parentage alone: a
/// server has job workers, warm idle workers and probe children at once.
enum ChildProcesses {
    /// The children of `pid`, from the `children` list of each of its threads.
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// The children of `pid` whose first argument is `command` (`probe-worker`, `worker`).
    static func children(of pid: Int32, running command: String) -> [Int32] {
        children(of: pid).filter { child in
            let arguments = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/cmdline"))) ?? Data()
            return arguments.split(separator: 0).dropFirst().first.map { Array($0) } == Array(command.utf8)
        }
    }

    /// Stops `pid` (SIGSTOP) and waits (up to 10 s) until the kernel shows it stopped. False when it had
    /// exited first: `kill` answers 0 for a zombie too, whose work is over.
    static func stop(_ pid: Int32) -> Bool {
        guard kill(pid, SIGSTOP) == 0 else { return false }
        for _ in 0..<10_000 {
            switch state(pid) {
            case "T", "t": return true
            case "Z", "X", nil: return false
            default: usleep(1000)
            }
        }
        return false
    }

    /// The state letter of `/proc/<pid>/stat` (`R`, `S`, `T`, `Z`, …), nil once the process is gone.
    static func state(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        // The state follows the parenthesised command name, which may itself hold spaces or parentheses.
        return stat.split(separator: ")").last?.split(separator: " ").first?.first
    }

    /// Holds every `command` child of `server` from the moment it appears (idle ones at once) until
    /// `release(keeping:)`: a job handed to one of them cannot make any progress before the test has
    /// found which one it is, however loaded the machine.
    final class Holder: Sendable {
        private let held = Mutex<Set<Int32>>([])
        private let done = Atomic(false)
        private let finished = DispatchSemaphore(value: 0)

        /// Returns once the children already there are held.
        init(_ server: Int32, command: String) {
            let firstPass = DispatchSemaphore(value: 0)
            Thread { [self] in
                var passes = 0
                while !done.load(ordering: .acquiring) {
                    for child in children(of: server, running: command) where !held.withLock({ $0.contains(child) }) {
                        if stop(child) { held.withLock { _ = $0.insert(child) } }
                    }
                    passes += 1
                    if passes == 1 { firstPass.signal() }
                    usleep(500)
                }
                finished.signal()
            }.start()
            firstPass.wait()
        }

        /// Stops holding: every held child but `kept` goes on; `kept` stays stopped, and is stopped now if
        /// it was not held yet.
        func release(keeping kept: Int32?) {
            done.store(true, ordering: .releasing)
            finished.wait()
            for child in held.withLock({ $0 }) where child != kept { kill(child, SIGCONT) }
            if let kept { _ = stop(kept) }
        }
    }
}
