import Foundation
import JobStore
import MediaCore
import NIOCore
import MediadClient
import ObjectStorage

/// The media of jobs in the bucket of `--objects`. Outputs are at `jobs/<id>/outputs/<name>` under the
/// prefix, put there when the job's run ends (before it is `succeeded`), read back for downloads (a
/// presigned GET or a ranged stream). Inputs are at `jobs/<id>/inputs/<name>` and the job's URLs at
/// `jobs/<id>/egress.json`, stored before the job is queued (`JobObjects+Inputs`), so any replica can run
/// it. All of them are removed with the job.
///
/// Keys are this type's business alone: records keep the API's `url` of an output, never its key.
package struct JobObjects: Sendable {
    package let client: S3Client
    package let settings: ObjectSettings
    /// What failed puts left in the bucket while the store did not answer, removed once it does.
    package let leftovers = ObjectLeftovers()
    /// Files up to this size go up in one PUT; larger ones as a multipart upload.
    static let singlePutLimit: Int64 = 16 << 20

    package init(settings: ObjectSettings, client: S3Client) {
        self.settings = settings
        self.client = client
    }

    /// Whether the store answered its last request (`StoreReachability`): new jobs wait while it does not.
    package var isReachable: Bool { client.reachability.isReachable }

    /// The key of output `name` of job `id`, relative to the prefix.
    static func key(job id: String, output name: String) -> String { "jobs/\(id)/outputs/\(name)" }

    /// The key prefix of everything of job `id`.
    static func prefix(job id: String) -> String { "jobs/\(id)/" }

    /// Puts every output of job `id` (files in `directory`) into the bucket, each checked against its
    /// SHA-256 by the store. Throws `storage_unavailable` when one could not be stored within the client's
    /// retry window; the job's outputs stored before it (and any upload under way) are removed then, or
    /// once the store answers again, so none is presented as an output.
    package func upload(_ outputs: [FileDigest], ofJob id: String, from directory: String) async throws {
        do {
            for output in outputs {
                let key = Self.key(job: id, output: output.name)
                let path = directory + "/" + output.name
                try await put(
                    path, size: output.size, sha256: output.sha256, as: key, type: OutputContentType.of(output.name))
            }
        } catch {
            await clean(.prefix(Self.outputsPrefix(job: id)))
            throw MediaError(.storageUnavailable, "the outputs could not be stored in the bucket: \(error)")
        }
    }

    /// The key prefix of job `id`'s outputs.
    static func outputsPrefix(job id: String) -> String { "jobs/\(id)/outputs/" }

    /// Puts the file at `path` as `key`: one PUT checked against `sha256` up to `singlePutLimit`, else a
    /// multipart upload (aborted when it fails).
    func put(_ path: String, size: Int64, sha256: String, as key: String, type: String) async throws {
        if size <= Self.singlePutLimit {
            try await client.putObject(key, body: .file(path), contentType: type, sha256Hex: sha256)
        } else {
            try await MultipartPut(
                client: client, leftovers: leftovers, key: key, path: path, size: size, contentType: type
            ).run()
        }
    }

    /// The key of job `id`'s log, put there when the job ends.
    static func logKey(job id: String) -> String { "jobs/\(id)/job.log" }

    /// Puts the log of an ended job (the file at `path`) into the bucket, so that a replica that did not
    /// run the job, or lost its scratch directory, answers `GET /jobs/{id}/log` with it.
    /// While the store is known not to answer (a request has just failed through its retry window), one
    /// attempt: the job's end is not held for another window.
    package func storeLog(job id: String, from path: String) async throws {
        let client = isReachable ? client : Self.once(client)
        try await client.putObject(Self.logKey(job: id), body: .file(path), contentType: "text/plain; charset=utf-8")
    }

    /// The last `limit` bytes of job `id`'s log from the bucket, or nil when it has none there (the job has
    /// not ended, or ended before the store had its log).
    package func log(job id: String, limit: Int64) async throws -> [UInt8]? {
        guard let info = try await client.headObject(Self.logKey(job: id)) else { return nil }
        let start = max(0, info.size - limit)
        guard info.size > 0 else { return [] }
        return try await client.getObject(Self.logKey(job: id), range: start...(info.size - 1), maxBody: Int(limit))
    }

    /// A URL that GETs output `name` of job `id` straight from the store for `settings.downloadExpiry` seconds.
    package func presignedURL(job id: String, output name: String) throws -> String {
        try client.presignedGET(Self.key(job: id, output: name), expires: settings.downloadExpiry)
    }

    /// Streams output `name` of job `id` (the bytes of `range`, both ends included, when given) to `sink`.
    package func stream(
        job id: String, output name: String, range: ClosedRange<Int64>?,
        to sink: @escaping @Sendable (ByteBuffer) async throws -> Void
    ) async throws {
        try await client.getObject(Self.key(job: id, output: name), range: range, sink: sink)
    }

    /// Removes every object of job `id`: those listed under its prefix, and its multipart uploads left
    /// unfinished. When the store fails, the removal waits in `leftovers` for its return.
    package func removeJob(_ id: String) async throws {
        let prefix = Self.prefix(job: id)
        do {
            try await Self.remove(.prefix(prefix), with: client)
        } catch {
            leftovers.add(.prefix(prefix))
            throw error
        }
    }
}
