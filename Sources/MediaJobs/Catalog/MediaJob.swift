import Foundation
import MediaCore

/// One kind of job (remux, mux, …): everything the command line, the HTTP API, the worker, upload
/// screening and the API description need to know about it, in one place.
///
/// A kind is a type whose static members describe it; `JobKind` names it and `JobCatalog` lists every kind.
/// Whoever runs jobs goes through the catalog, so adding a kind never touches a `switch` elsewhere.
public protocol MediaJob: Sendable {
    /// The kind's options after defaults; validated when parsed and when decoded.
    associatedtype Options: JobOptionSet
    /// What a run reports.
    associatedtype Result: JobResult

    /// The kind's name in URLs (`POST /jobs/remux`), job records and the command line.
    static var name: String { get }
    /// The upload parts the kind takes, and what each may hold.
    static var inputs: [JobInputPart] { get }
    /// How much longer than a remux of an input of the same size the kind may run: its time limits
    /// (wall clock and CPU) are scaled by it. 1 for the kinds that copy or code audio only.
    static var timeScale: Double { get }
    /// Refuses input parts that cannot go with these options (encode: camera frames without
    /// `pixel_format`), so that a request fails with 400 before a job exists. Any parts do by default.
    static func checkParts(_ parts: Set<String>, options: Options) throws
    /// The primary output's file name for these options, e.g. `output.mkv`.
    static func primaryOutput(for options: Options) -> String
    /// Runs the job on the calling thread: reads the parts given in `inputs`, writes the primary output to
    /// the path `output` and any further outputs beside it, in the same directory.
    ///
    /// The server passes `<job>/outputs/` + `primaryOutput(for:)`; the command line passes the user's path.
    static func run(_ options: Options, inputs: JobInputFiles, output: String, context: JobContext) throws -> Result
    /// What `options` require of an input's tracks, checked by the server against a probe of each upload
    /// before the job is queued, so that a refusal that depends on the file's contents (a codec a segment
    /// format cannot carry, a size the encoder cannot take, more memory than `memoryLimit`, the address
    /// space a job's worker may map, when the server limits it) is a 400 rather than a failed job; nil
    /// when the options require nothing. The job makes the same checks when it opens its input, which is
    /// all an input by URL or the command line gets.
    static func admission(for options: Options, memoryLimit: Int64?) -> (@Sendable (MediaInfo) throws -> Void)?
    /// How a job with `options` writes its output `name` (a path inside the output directory), which says
    /// whether it can be read while the job runs; nil when the kind never writes an output of that name.
    /// Every output is `completedAtEnd` unless the kind says otherwise (`OutputGrowth`).
    static func growth(ofOutput name: String, options: Options) -> OutputGrowth?
}

extension MediaJob {
    /// The kind as a value.
    public static var kind: JobKind { JobKind(Self.self) }

    public static var timeScale: Double { 1 }

    public static func admission(for options: Options, memoryLimit: Int64?) -> (@Sendable (MediaInfo) throws -> Void)? {
        nil
    }

    static func admission(for options: JobOptions, memoryLimit: Int64?) throws
        -> (@Sendable (MediaInfo) throws -> Void)?
    {
        admission(for: try options.typed(Options.self), memoryLimit: memoryLimit)
    }

    public static func checkParts(_ parts: Set<String>, options: Options) throws {}

    static func checkParts(_ parts: Set<String>, options: JobOptions) throws {
        try checkParts(parts, options: try options.typed(Options.self))
    }

    static var optionDescriptions: [OptionDescription] { Options.descriptions }

    static func parseOptions(_ values: [String: String]) throws -> JobOptions {
        JobOptions(try Options(parsing: values), kind: kind)
    }

    static func decodeOptions(from decoder: Swift.Decoder) throws -> JobOptions {
        JobOptions(try Options(from: decoder), kind: kind)
    }

    static func decodeResult(from decoder: Swift.Decoder) throws -> JobResultValue {
        JobResultValue(try Result(from: decoder), kind: kind)
    }

    static func primaryOutput(for options: JobOptions) throws -> String {
        primaryOutput(for: try options.typed(Options.self))
    }

    /// Runs the job and names its outputs by their path inside `outputDirectory` (`output.mp4`,
    /// `720p/seg_00001.m4s`), so no path of the machine that ran it reaches a record.
    static func run(
        _ options: JobOptions, inputs: JobInputFiles, outputDirectory: String, context: JobContext
    ) throws -> JobResultValue {
        let options = try options.typed(Options.self)
        let output = outputDirectory + "/" + primaryOutput(for: options)
        var result = try run(options, inputs: inputs, output: output, context: context)
        let prefix = outputDirectory + "/"
        result.outputs = result.outputs.map {
            $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : URL(fileURLWithPath: $0).lastPathComponent
        }
        return JobResultValue(result, kind: kind)
    }
}
