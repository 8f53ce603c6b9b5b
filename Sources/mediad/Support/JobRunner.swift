import Foundation
import MediaCore
import MediaJobs
import MediadRuntime
import Synchronization

/// Set by SIGINT/SIGTERM; jobs poll it and stop with `cancelled`, removing their partial outputs.
let interruptRequested = Atomic<Bool>(false)

/// Runs one job for a command: progress bar on a terminal, warnings and errors on stderr, exit status.
enum JobRunner {
    /// Runs `body` with a context wired to the progress bar and to Ctrl-C, and turns failures into
    /// `error: <code>: <message>` with exit status 1.
    static func run<Result>(showProgress: Bool = true, _ body: (JobContext) throws -> Result) throws -> Result {
        // A command a server starts must not outlive it; one a user types is not tethered.
        ServerTether.holdIfStartedByServer()
        installInterruptHandlers()
        LibavLog.configure(level: verboseLibav ? 32 : 16) { _, line in
            FileHandle.standardError.write(Data("libav: \(line)\n".utf8))
        }
        let bar = ProgressBar(enabled: showProgress && isatty(STDERR_FILENO) == 1)
        let context = JobContext(
            reportProgress: { bar.update($0) },
            isCancelled: { interruptRequested.load(ordering: .relaxed) })
        do {
            let result = try body(context)
            bar.finish()
            return result
        } catch let error as MediaError {
            bar.finish()
            fail(error)
        } catch {
            bar.finish()
            fail(MediaError(.internalError, "\(error)"))
        }
    }

    /// Runs one job of `Job`'s kind through the catalog's entry point, as the server's worker does, with the
    /// primary output at the user's path, then reports the result.
    static func run<Job: MediaJob>(
        _ job: Job.Type, options: OptionValues, inputs: [String: String?], to arguments: JobOutputArguments<Job>
    ) throws {
        OutputPath.refuseOverwriting(inputs.values.compactMap { $0 }, with: arguments.output)
        let result = try run { context in
            try Job.run(
                try Job.Options(parsing: options.values), inputs: JobInputFiles(inputs.compactMapValues { $0 }),
                output: arguments.output, context: context)
        }
        try report(result, json: arguments.json)
    }

    /// Prints a job's warnings to stderr and its result to stdout (JSON, or the output paths).
    static func report<R: JobResult>(_ result: R, json: Bool) throws {
        for warning in result.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        if json {
            print(String(decoding: try MediaJSON.encode(result), as: UTF8.self))
        } else {
            for output in result.outputs { print(output) }
        }
    }

    static func fail(_ error: MediaError) -> Never {
        FileHandle.standardError.write(Data("error: \(error.code): \(error.message)\n".utf8))
        exit(1)
    }

    /// `MEDIAD_LOG=verbose` shows libav's informational lines too.
    private static var verboseLibav: Bool { ProcessInfo.processInfo.environment["MEDIAD_LOG"] == "verbose" }

    private static func installInterruptHandlers() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in interruptRequested.store(true, ordering: .relaxed) }
        }
    }
}
