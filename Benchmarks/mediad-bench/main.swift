import Foundation
import MediaCore
import MediaJobs

/// Times mediad's remux engine in one warm process, with no HTTP and no process start in the numbers: the
/// benchmark harness (`bench/run.py`) runs it next to the `ffmpeg` CLI on the same files.
///
///     mediad-bench <input> <output> <format> <iterations>
///
/// One untimed warm-up run comes first (page cache, libav's lazy tables); then each timed run's wall
/// time is printed in seconds, one a line. A failed run prints `error: <code>: <message>` and exits 1.
let arguments = CommandLine.arguments
guard arguments.count == 5, let iterations = Int(arguments[4]), iterations > 0 else {
    FileHandle.standardError.write(Data("usage: mediad-bench <input> <output> <format> <iterations>\n".utf8))
    exit(2)
}
let (input, output) = (arguments[1], arguments[2])

do {
    let options = try RemuxJob.Options(parsing: ["format": arguments[3]])
    let inputs = JobInputFiles(["file": input])
    let runOnce = { _ = try RemuxJob.run(options, inputs: inputs, output: output, context: JobContext()) }
    try runOnce()
    for _ in 0..<iterations {
        let clock = ContinuousClock()
        let elapsed = try clock.measure { try runOnce() }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(String(format: "%.6f", seconds))
    }
} catch let error as MediaError {
    FileHandle.standardError.write(Data("error: \(error.code): \(error.message)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
