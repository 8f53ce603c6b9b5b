import MediaCore

/// The identity of a job kind: a `MediaJob` type, known by its name.
///
/// Records, queries and idempotency entries store the name; decoding one looks it up in `JobCatalog`, so
/// a record of a kind this build does not know fails to load instead of being run as something else.
public struct JobKind: Sendable, Hashable, CaseIterable, RawRepresentable, CustomStringConvertible {
    /// The type that describes and runs the kind.
    public let job: any MediaJob.Type

    public init<Job: MediaJob>(_ job: Job.Type) { self.job = job }

    /// The catalog's kind of that name, or nil.
    public init?(rawValue: String) {
        guard let kind = JobCatalog.kinds.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = kind
    }

    /// The kind's name, e.g. `remux`.
    public var rawValue: String { job.name }

    public var description: String { rawValue }

    /// Every kind, in the catalog's order.
    public static var allCases: [JobKind] { JobCatalog.kinds }

    /// The upload parts the kind takes.
    public var inputs: [JobInputPart] { job.inputs }

    /// The part a lone input fills when nothing names its part — a raw body, `upload=`, a tus upload that
    /// names the kind: the `file` part where the kind has one (encode's, beside its `video` and `audio`
    /// parts), else the only part of a kind of one; nil for mux, whose raw body its bytes assign.
    public var loneInput: JobInputPart? {
        inputs.first { $0.name == "file" } ?? (inputs.count == 1 ? inputs[0] : nil)
    }

    /// The factor the kind's time limits are scaled by (`MediaJob.timeScale`).
    public var timeScale: Double { job.timeScale }

    /// Every option the kind takes.
    public var optionDescriptions: [OptionDescription] { job.optionDescriptions }

    /// Parses and validates string options (query parameters, form fields); throws `invalid_option` or
    /// `conflicting_options`.
    public func options(parsing values: [String: String]) throws -> JobOptions { try job.parseOptions(values) }

    /// Decodes this kind's options, validating them as parsing does.
    public func decodeOptions(from decoder: Swift.Decoder) throws -> JobOptions { try job.decodeOptions(from: decoder) }

    /// Decodes this kind's result.
    public func decodeResult(from decoder: Swift.Decoder) throws -> JobResultValue {
        try job.decodeResult(from: decoder)
    }

    /// The check of an upload's tracks that `options` require before a job is queued
    /// (`MediaJob.admission(for:memoryLimit:)`) under a worker's `memoryLimit` (nil: none), or nil.
    public func admission(for options: JobOptions, memoryLimit: Int64?) throws
        -> (@Sendable (MediaInfo) throws -> Void)?
    {
        try job.admission(for: options, memoryLimit: memoryLimit)
    }

    /// Throws when the input parts given (by part name) cannot go with `options` (`MediaJob.checkParts`).
    public func checkParts(_ parts: Set<String>, options: JobOptions) throws {
        try job.checkParts(parts, options: options)
    }

    /// The primary output's file name for `options`.
    public func primaryOutput(for options: JobOptions) throws -> String { try job.primaryOutput(for: options) }

    /// Runs a job of this kind on the calling thread; outputs in the result are file names in
    /// `outputDirectory`.
    public func run(
        _ options: JobOptions, inputs: JobInputFiles, outputDirectory: String, context: JobContext
    ) throws -> JobResultValue {
        try job.run(options, inputs: inputs, outputDirectory: outputDirectory, context: context)
    }

    public static func == (lhs: JobKind, rhs: JobKind) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

extension JobKind: Codable {
    public init(from decoder: Swift.Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let kind = JobKind(rawValue: name) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "no job kind '\(name)'"))
        }
        self = kind
    }

    public func encode(to encoder: Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
