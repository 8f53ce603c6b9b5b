import ArgumentParser
import MediadRuntime

/// `mediad probe-worker`: describes one uploaded file under resource limits, for `mediad serve`'s `/probe`.
struct ProbeWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe-worker",
        abstract: "Probe one file under resource limits (started by serve for POST /probe).",
        discussion: """
            mediad serve starts one probe worker per /probe request. It sets the jobs' limits before it opens \
            the file and reports the description, with long tags cut and at most 64 of them, or the error as \
            one JSON line on stdout. Use mediad probe to look at a file yourself.
            """)

    @Argument(help: "The file to probe.")
    var file: String

    @OptionGroup var limitOptions: WorkerLimitOptions

    @Flag(help: "Measure each audio track's EBU R128 loudness too.")
    var loudness = false

    func run() throws {
        ProbeWorker.run(path: file, limits: limitOptions.limits, loudness: loudness)
    }
}
