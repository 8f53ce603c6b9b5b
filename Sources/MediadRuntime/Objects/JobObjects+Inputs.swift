import Foundation
import JobStore
import MediaCore
import MediadClient
import ObjectStorage

/// A job's inputs and URLs in the bucket: stored before the job is queued, so a replica that claims the job
/// without its directory (or whose directory was lost: `--data-dir` is scratch with `--objects`) stages
/// them from there.
extension JobObjects {
    /// The key of input `name` (its stored name) of job `id`, relative to the prefix.
    static func key(job id: String, input name: String) -> String { "jobs/\(id)/inputs/\(name)" }

    /// The key of the URLs job `id` fetches its inputs from and delivers its outputs to.
    static func egressKey(job id: String) -> String { "jobs/\(id)/egress.json" }

    /// A put of input `name` of job `id` fed from the upload file at `path` while its body arrives.
    package func streamingPut(job id: String, input name: String, path: String) -> InputObjectPut {
        InputObjectPut(client: client, leftovers: leftovers, key: Self.key(job: id, input: name), path: path)
    }

    /// Puts a received input whole (a tus upload, a fetched URL input, a body whose part was known only at
    /// its end). Throws `storage_unavailable`.
    package func putInput(job id: String, name: String, file: UploadedFile) async throws {
        do {
            try await put(
                file.path, size: file.size, sha256: file.sha256, as: Self.key(job: id, input: name),
                type: InputObjectPut.contentType)
        } catch {
            throw InputObjectPut.failure(error)
        }
    }

    /// Puts the job's input and output URLs (`egress.json`, whose query strings may be signatures: the
    /// bucket is as private as the data directory). Throws `storage_unavailable`.
    package func putEgress(job id: String, _ targets: EgressTargets) async throws {
        do {
            let body = Array(try JSONEncoder().encode(targets))
            try await client.putObject(
                Self.egressKey(job: id), body: .bytes(body), contentType: "application/json",
                sha256Hex: SigV4Signer.sha256Hex(body))
        } catch {
            throw InputObjectPut.failure(error)
        }
    }
}
