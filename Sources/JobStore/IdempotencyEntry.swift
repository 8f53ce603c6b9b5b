import Foundation
import MediaJobs

/// What one `Idempotency-Key` was first used for: the job it created and what that request asked for, so a
/// repeat can be told apart from a different request reusing the key.
///
/// Stored as `<root>/idempotency/<digest>.json`; see `JobStore.claimIdempotencyKey`.
public struct IdempotencyEntry: Codable, Sendable, Equatable {
    /// The job the key created.
    public var jobID: String
    /// When the key was first used; it is free again `lifetime` later.
    public var createdAt: Date
    /// The job's options after defaults.
    public var options: JobOptions
    /// The kind `options` belong to.
    public var kind: JobKind { options.kind }
    public var callbackURL: String?
    /// Input name → SHA-256 (lowercase hex) of the uploaded bytes.
    public var inputs: [String: String]

    public init(
        jobID: String, createdAt: Date, options: JobOptions, callbackURL: String?,
        inputs: [String: String]
    ) {
        self.jobID = jobID
        self.createdAt = createdAt
        self.options = options
        self.callbackURL = callbackURL
        self.inputs = inputs
    }

    enum CodingKeys: String, CodingKey {
        case kind, options, inputs
        case jobID = "job_id"
        case createdAt = "created_at"
        case callbackURL = "callback_url"
    }

    /// Reads `kind` first: it says which type `options` decode as.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        jobID = try container.decode(String.self, forKey: .jobID)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        let kind = try container.decode(JobKind.self, forKey: .kind)
        options = try kind.decodeOptions(from: container.superDecoder(forKey: .options))
        callbackURL = try container.decodeIfPresent(String.self, forKey: .callbackURL)
        inputs = try container.decode([String: String].self, forKey: .inputs)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jobID, forKey: .jobID)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(kind, forKey: .kind)
        try container.encode(options, forKey: .options)
        try container.encodeIfPresent(callbackURL, forKey: .callbackURL)
        try container.encode(inputs, forKey: .inputs)
    }

    /// Why a request with the same key is not a repeat of this one, or nil when it is.
    public func mismatch(with other: IdempotencyEntry) -> String? {
        if kind != other.kind {
            return "this Idempotency-Key was used for a \(kind.rawValue) job, not \(other.kind.rawValue)"
        }
        if inputs != other.inputs { return "this Idempotency-Key was used with a different input" }
        if options != other.options || callbackURL != other.callbackURL {
            return "this Idempotency-Key was used with different options"
        }
        return nil
    }
}
