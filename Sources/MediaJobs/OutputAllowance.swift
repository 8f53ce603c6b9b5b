import MediaCore

/// How many bytes a job may write, by each limit that bounds it: the server's `--max-output`, what the
/// disk can take above `--min-free-disk` (less what unfinished resumable uploads have reserved), and what
/// the job's API token has left of its `--quota`. nil: no such limit (the command line has none).
///
/// A kind whose output size follows from its input's description (decode: raw frames, PCM) checks it with
/// `checkPredicted` before it decodes anything, so that a few kilobytes of input cannot fill the disk
/// first; the rest is checked as outputs grow (`checkWritten`). The code says which limit was passed, and
/// with it what a client can do: `output_too_large` never fits; `quota_exceeded` fits once the token's
/// jobs are deleted; `insufficient_storage` once the disk has room.
public struct OutputAllowance: Sendable, Equatable {
    /// `--max-output`: the most a job may write, in all and in any one file.
    public var maxOutput: Int64?
    /// Free bytes above the disk's reserve when the job started.
    public var diskHeadroom: Int64?
    /// What the job's token may still store when the job started (its inputs counted).
    public var quotaRemaining: Int64?

    public init(maxOutput: Int64? = nil, diskHeadroom: Int64? = nil, quotaRemaining: Int64? = nil) {
        self.maxOutput = maxOutput
        self.diskHeadroom = diskHeadroom
        self.quotaRemaining = quotaRemaining
    }

    /// Throws when outputs of `bytes`, which `what` describes (`60 frames of 3840x2160 yuv420p as y4m`),
    /// would pass a limit: `output_too_large` past `--max-output`, else `quota_exceeded` past the quota,
    /// else `insufficient_storage` past the disk's headroom.
    public func checkPredicted(_ bytes: Int64, _ what: String) throws {
        let refusal = "; refused before decoding"
        let output = "the output would be \(bytes) bytes (\(what))"
        if let passed = passedWriteLimit(bytes) {
            throw MediaError(passed.code, "\(output), over \(passed.limit)\(refusal)")
        }
        if let diskHeadroom, bytes > diskHeadroom {
            throw MediaError(
                .insufficientStorage,
                "\(output), over the \(max(0, diskHeadroom)) bytes the server's disk can take above its reserve "
                    + "(--min-free-disk)\(refusal)")
        }
    }

    /// Throws when outputs that hold `bytes` so far have passed `--max-output` (`output_too_large`) or the
    /// quota (`quota_exceeded`). The disk is watched apart, as it changes while the job runs.
    public func checkWritten(_ bytes: Int64) throws {
        let stopped = "; the job stopped and its partial outputs were removed"
        if let passed = passedWriteLimit(bytes) {
            throw MediaError(passed.code, "the job's outputs passed \(passed.limit)\(stopped)")
        }
    }

    /// The first of `--max-output` and the quota that `bytes` passes, with the code that says which, and
    /// its words for messages; nil when it passes neither.
    private func passedWriteLimit(_ bytes: Int64) -> (code: MediaError.Code, limit: String)? {
        if let maxOutput, bytes > maxOutput {
            return (.outputTooLarge, "the \(maxOutput) bytes a job may write (--max-output)")
        }
        if let quotaRemaining, bytes > quotaRemaining {
            return (.quotaExceeded, "the \(max(0, quotaRemaining)) bytes left of the API token's quota (--quota)")
        }
        return nil
    }

    /// Whether `checkWritten` has a limit to check.
    public var limitsWrites: Bool { maxOutput != nil || quotaRemaining != nil }

    /// Whether no limit applies, so that nothing need be predicted.
    public var isUnlimited: Bool { !limitsWrites && diskHeadroom == nil }
}
