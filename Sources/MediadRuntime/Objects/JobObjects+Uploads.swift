import Digests
import MediaCore
import MediadClient
import ObjectStorage

/// tus uploads into the bucket: each is one multipart upload, made when the upload is created, of the
/// object its bytes become. An upload whose metadata names a kind goes straight to the input of the job it
/// will be (`jobs/<job>/inputs/<name>`, the job's id chosen then); one without a kind, for `upload=` to
/// name later, to `uploads/<id>`. Parts come from `UploadPartFeed`; completing, aborting and removing are
/// here.
extension JobObjects {
    /// The key of an upload's object: the input `input` of job `job` when it names one, else its own.
    package static func uploadKey(_ id: String, job: String?, input: String?) -> String {
        guard let job, let input else { return "uploads/\(id)" }
        return key(job: job, input: input)
    }

    /// Starts the multipart upload of `key` and returns its id. Throws `storage_unavailable`.
    package func startUpload(_ key: String) async throws -> String {
        do {
            return try await client.createMultipartUpload(key, contentType: InputObjectPut.contentType)
        } catch {
            throw InputObjectPut.failure(error)
        }
    }

    /// The feed of one request's parts (see `UploadPartFeed`).
    package func partFeed(
        key: String, uploadID: String, path: String, length: Int64, partsEnd: Int64,
        midstate: ResumableSHA256.Midstate?, start: Int64
    ) -> UploadPartFeed {
        UploadPartFeed(
            client: client, key: key, uploadID: uploadID, path: path, length: length, partsEnd: partsEnd,
            midstate: midstate, start: start)
    }

    /// Assembles the upload's `parts` (number and ETag) into its object. Throws `storage_unavailable`.
    package func completeUpload(_ key: String, uploadID: String, parts: [(number: Int, etag: String)])
        async throws
    {
        do {
            try await client.completeMultipartUpload(
                key, uploadID: uploadID, parts: parts.map { S3Client.Part(number: $0.number, etag: $0.etag) })
        } catch {
            throw InputObjectPut.failure(error)
        }
    }

    /// Removes what an upload left in the bucket: its multipart upload (when `uploadID` is still under way)
    /// and its object.
    package func removeUpload(_ key: String, uploadID: String?) async throws {
        do {
            if let uploadID {
                do {
                    try await client.abortMultipartUpload(key, uploadID: uploadID)
                } catch let error as S3Error where error.status == 404 {
                    // Completed or aborted already.
                }
            }
            try await client.deleteObject(key)
        } catch {
            throw InputObjectPut.failure(error)
        }
    }

    /// Copies the object of an upload without a kind (`uploads/<id>`) to input `name` of job `id`, which
    /// a request made naming the upload (`upload=<id>`). Throws `storage_unavailable`.
    package func copyInput(from key: String, job id: String, name: String) async throws {
        do {
            try await client.copyObject(from: key, to: Self.key(job: id, input: name))
        } catch {
            throw InputObjectPut.failure(error)
        }
    }
}
