import Foundation
import JobStore
import MediaCore
import MediadClient
import NIOCore
import NIOPosix
import ObjectStorage

/// Staging from the bucket, for a replica about to run a job whose directory lacks its inputs or URLs:
/// each read back and checked against what the job recorded before the run may use it.
extension JobObjects {
    /// The job's URLs as stored with `putEgress`; none when the job has no such object.
    package func egress(job id: String) async throws -> EgressTargets {
        do {
            let body = try await client.getObject(Self.egressKey(job: id), maxBody: 1 << 20)
            return try JSONDecoder().decode(EgressTargets.self, from: Data(body))
        } catch let error as S3Error where error.code == "NoSuchKey" || error.status == 404 {
            return EgressTargets()
        } catch {
            throw InputObjectPut.failure(error)
        }
    }

    /// GETs input `input` of job `id` into `upload` (hashed as it is written) and returns it finished, once
    /// its size and SHA-256 are those recorded. Throws `input_object_missing` when the bucket has no such
    /// object, `input_object_mismatch` when it is another file, `storage_unavailable` when the store fails;
    /// the upload is discarded then.
    package func stage(job id: String, input: JobInput, into upload: UploadFile, threadPool: NIOThreadPool)
        async throws -> UploadedFile
    {
        let key = Self.key(job: id, input: input.name)
        do {
            try await client.getObject(key) { chunk in
                try await threadPool.runIfActive { try chunk.withUnsafeReadableBytes { try upload.write($0) } }
            }
            let file = try await threadPool.runIfActive { try upload.finish() }
            guard file.size == input.size, file.sha256 == input.sha256 else {
                await threadPool.remove(file.path)
                throw MediaError(
                    .inputObjectMismatch,
                    "input \(input.name) in the bucket is \(file.size) bytes of SHA-256 \(file.sha256); the job "
                        + "recorded \(input.size) bytes of SHA-256 \(input.sha256)")
            }
            return file
        } catch {
            try? await threadPool.runIfActive { upload.discard() }
            if let error = error as? MediaError { throw error }
            if let error = error as? S3Error, error.code == "NoSuchKey" || error.status == 404 {
                throw MediaError(.inputObjectMissing, "input \(input.name) of job \(id) is not in the bucket: \(error)")
            }
            throw MediaError(.storageUnavailable, "input \(input.name) could not be read from the bucket: \(error)")
        }
    }
}

extension NIOThreadPool {
    /// Deletes a file, off the event loop; one already gone is fine.
    fileprivate func remove(_ path: String) async {
        try? await runIfActive { _ = unlink(path) }
    }
}
