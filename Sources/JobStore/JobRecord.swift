import Foundation
import MediaJobs

/// Where a job is in its life: `queued` → `running` → `succeeded` | `failed` | `cancelled`.
public enum JobState: String, Codable, Sendable, CaseIterable {
    case queued, running, succeeded, failed, cancelled

    /// True for the three states a job never leaves.
    public var isTerminal: Bool { self == .succeeded || self == .failed || self == .cancelled }
}

/// An input file as received: its name in the job directory, size and SHA-256 (lowercase hex).
public typealias JobInput = FileDigest

/// A finished output: listed only once the file is complete under its final name.
///
/// Its keys are snake_case like the rest of a record (`content_type`, as openapi.yaml says); records
/// written before that, with `contentType`, still load and are written back with `content_type`.
public struct JobOutput: Codable, Sendable, Equatable {
    public var name: String
    public var size: Int64
    public var sha256: String
    public var contentType: String
    /// Where to download it, as the API that ran the job says (the store keeps it, knowing no route).
    public var url: String

    /// The output `file`, served as `contentType` at `url`.
    public init(_ file: FileDigest, contentType: String, url: String) {
        name = file.name
        size = file.size
        sha256 = file.sha256
        self.contentType = contentType
        self.url = url
    }

    enum CodingKeys: String, CodingKey {
        case name, size, sha256, url
        case contentType = "content_type"
    }

    /// The key of records written before outputs were snake_case; read, never written.
    private enum LegacyKeys: String, CodingKey {
        case contentType
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let legacy = try decoder.container(keyedBy: LegacyKeys.self)
        let file = FileDigest(
            name: try container.decode(String.self, forKey: .name),
            size: try container.decode(Int64.self, forKey: .size),
            sha256: try container.decode(String.self, forKey: .sha256))
        try self.init(
            file,
            contentType: container.decodeIfPresent(String.self, forKey: .contentType)
                ?? legacy.decode(String.self, forKey: .contentType),
            url: container.decode(String.self, forKey: .url))
    }
}

/// Why a job failed: the engine's (or the service's) stable code and a message for people.
public struct JobError: Codable, Sendable, Equatable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// One job as `job.json` stores it and the API shows it.
///
/// Encoded with snake_case keys and RFC 3339 times; `started_at`, `finished_at` and `error` are always
/// present (null when not set) so clients can rely on the shape.
public struct JobRecord: Codable, Sendable, Equatable {
    /// Random, 128 bits, URL-safe base64 (22 characters).
    public var id: String
    public var state: JobState
    /// 0…1; exactly 1 on success.
    public var progress: Double
    public var createdAt: Date
    public var startedAt: Date?
    public var finishedAt: Date?
    /// The job's options after defaults, as its kind's typed options; validated again when read back.
    public var options: JobOptions
    /// One of `JobCatalog.kinds`, the one `options` belong to; a record of a kind this build does not know
    /// does not load.
    public var kind: JobKind { options.kind }
    public var inputs: [JobInput]
    /// Primary output first.
    public var outputs: [JobOutput]
    public var error: JobError?
    /// Runs started so far (a run interrupted by a crash counts).
    public var attempts: Int
    /// Things the engine reported that are not errors (e.g. rotation MKV cannot store).
    public var warnings: [String]
    /// The engine's full result (tracks, cut points, …) once the job succeeded; outputs by file name.
    public var result: JobResultValue?
    /// The uploaded file's own name, when the client sent one; used for download file names.
    public var sourceName: String?
    /// The name of the API token that created the job, when the server has tokens.
    public var owner: String?
    /// The replica (`--replica-id`) that ran the job last, in a store shared by several servers.
    public var replica: String?
    /// Where the job's end is POSTed (webhooks), when the client asked; absent in older records.
    public var callbackURL: String?
    /// Every webhook delivery attempt, oldest first; only for jobs with a `callback_url`.
    public var notifications: [NotificationAttempt]?
    /// The inputs fetched from URLs, in the order of the kind's parts; absent for jobs without any.
    public var inputSources: [InputSource]?
    /// The inputs still being uploaded, absent once none is (they are then listed in `inputs`).
    public var arrivingInputs: [ArrivingInput]?
    /// The outputs PUT to URLs once the job ended, in the order they were given; absent for jobs without
    /// any.
    public var deliveries: [OutputDelivery]?

    public init(
        id: String, state: JobState = .queued, progress: Double = 0, createdAt: Date,
        startedAt: Date? = nil, finishedAt: Date? = nil, options: JobOptions, inputs: [JobInput],
        outputs: [JobOutput] = [], error: JobError? = nil, attempts: Int = 0, warnings: [String] = [],
        result: JobResultValue? = nil, sourceName: String? = nil, owner: String? = nil, callbackURL: String? = nil
    ) {
        self.id = id
        self.state = state
        self.progress = progress
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.options = options
        self.inputs = inputs
        self.outputs = outputs
        self.error = error
        self.attempts = attempts
        self.warnings = warnings
        self.result = result
        self.sourceName = sourceName
        self.owner = owner
        self.callbackURL = callbackURL
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, state, progress, options, inputs, outputs, error, attempts, warnings, result, owner, replica
        case notifications
        case inputSources = "input_sources"
        case arrivingInputs = "arriving_inputs"
        case deliveries
        case callbackURL = "callback_url"
        case createdAt = "created_at"
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case sourceName = "source_name"
    }

    /// Reads `kind` first: it says which type `options` and `result` decode as.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        let kind = try container.decode(JobKind.self, forKey: .kind)
        state = try container.decode(JobState.self, forKey: .state)
        progress = try container.decode(Double.self, forKey: .progress)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        startedAt = try container.decodeIfPresent(Date.self, forKey: .startedAt)
        finishedAt = try container.decodeIfPresent(Date.self, forKey: .finishedAt)
        options = try kind.decodeOptions(from: container.superDecoder(forKey: .options))
        inputs = try container.decode([JobInput].self, forKey: .inputs)
        outputs = try container.decode([JobOutput].self, forKey: .outputs)
        error = try container.decodeIfPresent(JobError.self, forKey: .error)
        attempts = try container.decode(Int.self, forKey: .attempts)
        warnings = try container.decode([String].self, forKey: .warnings)
        result =
            try container.contains(.result) && !container.decodeNil(forKey: .result)
            ? kind.decodeResult(from: container.superDecoder(forKey: .result)) : nil
        sourceName = try container.decodeIfPresent(String.self, forKey: .sourceName)
        owner = try container.decodeIfPresent(String.self, forKey: .owner)
        replica = try container.decodeIfPresent(String.self, forKey: .replica)
        callbackURL = try container.decodeIfPresent(String.self, forKey: .callbackURL)
        notifications = try container.decodeIfPresent([NotificationAttempt].self, forKey: .notifications)
        inputSources = try container.decodeIfPresent([InputSource].self, forKey: .inputSources)
        arrivingInputs = try container.decodeIfPresent([ArrivingInput].self, forKey: .arrivingInputs)
        deliveries = try container.decodeIfPresent([OutputDelivery].self, forKey: .deliveries)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(state, forKey: .state)
        try container.encode(progress, forKey: .progress)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(finishedAt, forKey: .finishedAt)
        try container.encode(options, forKey: .options)
        try container.encode(inputs, forKey: .inputs)
        try container.encode(outputs, forKey: .outputs)
        try container.encode(error, forKey: .error)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(warnings, forKey: .warnings)
        try container.encodeIfPresent(result, forKey: .result)
        try container.encodeIfPresent(sourceName, forKey: .sourceName)
        try container.encodeIfPresent(owner, forKey: .owner)
        try container.encodeIfPresent(replica, forKey: .replica)
        try container.encodeIfPresent(callbackURL, forKey: .callbackURL)
        try container.encodeIfPresent(notifications, forKey: .notifications)
        try container.encodeIfPresent(inputSources, forKey: .inputSources)
        try container.encodeIfPresent(arrivingInputs, forKey: .arrivingInputs)
        try container.encodeIfPresent(deliveries, forKey: .deliveries)
    }
}
