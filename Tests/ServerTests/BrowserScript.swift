import Foundation
import TestSupport

/// Runs a Selenium script of this folder (headless Chromium) one at a time, and kills it after a limit.
///
/// Two Chromiums tearing down at once livelocked this machine's kernel (6.18, a Firecracker guest): both
/// zygotes, reaping their children, spun in `d_walk` under `proc_invalidate_siblings_dcache` on the two
/// cores, deaf to SIGKILL, and every other test starved for nine minutes until the two were pinned to
/// one core. So the scripts take turns: `flock` on `browser_temporaries.py`, which each imports and whose
/// exit waits for its browser's last process, serialises them from start to end. The wait for the turn
/// is not counted in the limit, which `timeout` applies to the script alone; the tests' own time limits
/// leave room for the other scripts' turns (at most 150 s each for the two Media Source ones, 240 s for
/// the console's).
enum BrowserScript {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static func run(_ name: String, _ arguments: [String], killAfter seconds: Int) throws -> Command.Output {
        try Command.run(
            "flock",
            [
                folder.appendingPathComponent("browser_temporaries.py").path, "timeout", "-s", "KILL", String(seconds),
                "python3", folder.appendingPathComponent(name).path,
            ] + arguments, allowFailure: true)
    }
}
