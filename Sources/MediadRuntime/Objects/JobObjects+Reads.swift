import NIOCore
import ObjectStorage

/// Reading back what a run put in the bucket: outputs for downloads (a presigned GET or a ranged stream)
/// and an ended job's log. Each read names the attempt of the record — for outputs, the run that succeeded —
/// so the objects a superseded run may still have written under its own attempt are never served.
extension JobObjects {
    /// The last `limit` bytes of the log of job `id`, which ended after run `attempt` (the record's
    /// `attempts`), from the bucket, or nil when it has none there (the job has not ended, or ended before
    /// the store had its log).
    package func log(job id: String, attempt: Int, limit: Int64) async throws -> [UInt8]? {
        let key = Self.logKey(job: id, attempt: attempt)
        guard let info = try await client.headObject(key) else { return nil }
        let start = max(0, info.size - limit)
        guard info.size > 0 else { return [] }
        return try await client.getObject(key, range: start...(info.size - 1), maxBody: Int(limit))
    }

    /// A URL that GETs output `name` of run `attempt` of job `id` (the run its record says succeeded)
    /// straight from the store for `settings.downloadExpiry` seconds.
    package func presignedURL(job id: String, attempt: Int, output name: String) throws -> String {
        try client.presignedGET(Self.key(job: id, attempt: attempt, output: name), expires: settings.downloadExpiry)
    }

    /// Streams output `name` of run `attempt` of job `id` (the bytes of `range`, both ends included, when
    /// given) to `sink`.
    package func stream(
        job id: String, attempt: Int, output name: String, range: ClosedRange<Int64>?,
        to sink: @escaping @Sendable (ByteBuffer) async throws -> Void
    ) async throws {
        try await client.getObject(Self.key(job: id, attempt: attempt, output: name), range: range, sink: sink)
    }
}
