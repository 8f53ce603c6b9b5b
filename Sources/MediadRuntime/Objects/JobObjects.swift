import Foundation
import JobStore
import MediaCore
import NIOCore
import MediadClient
import ObjectStorage

/// The media of jobs in the bucket of `--objects`. What a run writes is keyed by its attempt (the record's
/// `attempts` when it ran): outputs at `jobs/<id>/runs/<attempt>/outputs/<name>` under the prefix, put
/// there when the run ends (before the job is `succeeded`), and the log at `jobs/<id>/runs/<attempt>/job.log`
/// when the job ends; they are read back (a presigned GET or a ranged stream) under the attempt of the
/// record, the run that succeeded. A replica that stalled past its lease and still uploads once another
/// took the job over writes under its own, superseded attempt, never over the outputs served; such objects
/// stay until the job is removed. Inputs are at `jobs/<id>/inputs/<name>` and the job's URLs at
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

    /// The key prefix of what run `attempt` of job `id` wrote: its outputs, and the log when it ended the job.
    static func runPrefix(job id: String, attempt: Int) -> String { "jobs/\(id)/runs/\(attempt)/" }

    /// The key of output `name` of job `id` as run `attempt` made it, relative to the prefix.
    static func key(job id: String, attempt: Int, output name: String) -> String {
        runPrefix(job: id, attempt: attempt) + "outputs/" + name
    }

    /// The key prefix of everything of job `id`.
    static func prefix(job id: String) -> String { "jobs/\(id)/" }

    /// Puts every output of run `attempt` of job `id` (files in `directory`) into the bucket, each checked
    /// against its SHA-256 by the store. Throws `storage_unavailable` when one could not be stored within
    /// the client's retry window; the outputs of this run stored before it (and any upload under way) are
    /// removed then, or once the store answers again, so none is presented as an output. Another run's
    /// outputs are left alone.
    package func upload(_ outputs: [FileDigest], ofJob id: String, attempt: Int, from directory: String)
        async throws
    {
        do {
            for output in outputs {
                let key = Self.key(job: id, attempt: attempt, output: output.name)
                let path = directory + "/" + output.name
                try await put(
                    path, size: output.size, sha256: output.sha256, as: key, type: OutputContentType.of(output.name))
            }
        } catch {
            await clean(.prefix(Self.outputsPrefix(job: id, attempt: attempt)))
            throw MediaError(.storageUnavailable, "the outputs could not be stored in the bucket: \(error)")
        }
    }

    /// The key prefix of the outputs of run `attempt` of job `id`.
    static func outputsPrefix(job id: String, attempt: Int) -> String {
        runPrefix(job: id, attempt: attempt) + "outputs/"
    }

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

    /// The key of job `id`'s log as the job ended after run `attempt` (0 when it ended before any run).
    static func logKey(job id: String, attempt: Int) -> String { runPrefix(job: id, attempt: attempt) + "job.log" }

    /// Puts the log of a job that ended after run `attempt` (the file at `path`) into the bucket, so that a
    /// replica that did not run the job, or lost its scratch directory, answers `GET /jobs/{id}/log` with
    /// it. While the store is known not to answer (a request has just failed through its retry window), one
    /// attempt: the job's end is not held for another window.
    package func storeLog(job id: String, attempt: Int, from path: String) async throws {
        let client = isReachable ? client : Self.once(client)
        try await client.putObject(
            Self.logKey(job: id, attempt: attempt), body: .file(path), contentType: "text/plain; charset=utf-8")
    }

    /// Removes every object of job `id`: those listed under its prefix (inputs, and every run's outputs and
    /// log), and its multipart uploads left unfinished. When the store fails, the removal waits in
    /// `leftovers` for its return.
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
