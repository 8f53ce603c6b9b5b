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

    /// How many times a GET cut in the middle of an input is taken up again from the byte it reached.
    static let stagingResumes = 3

    /// GETs input `input` of job `id` into `upload` (hashed as it is written) and returns it finished, once
    /// its size and SHA-256 are those recorded. A GET cut once bytes have arrived goes on with a ranged GET
    /// from the first byte missing (up to `stagingResumes` times, each said to `resumed`); more bytes than
    /// recorded stop it at once. Throws `input_object_missing` when the bucket has no such object,
    /// `input_object_mismatch` when it is another file, `storage_unavailable` when the store fails, and
    /// `CancellationError` when the calling task is cancelled; the upload is discarded then.
    package func stage(
        job id: String, input: JobInput, into upload: UploadFile, threadPool: NIOThreadPool,
        resumed: @escaping @Sendable (Int64) -> Void = { _ in }
    ) async throws -> UploadedFile {
        let key = Self.key(job: id, input: input.name)
        do {
            try await get(key, input, into: upload, threadPool: threadPool, resumed: resumed)
            let file = try await threadPool.runIfActive { try upload.finish() }
            guard file.size == input.size, file.sha256 == input.sha256 else {
                await threadPool.remove(file.path)
                throw Self.mismatch(input, size: file.size, sha256: file.sha256)
            }
            return file
        } catch {
            try? await threadPool.runIfActive { upload.discard() }
            if error is MediaError || error is CancellationError { throw error }
            if let error = error as? S3Error, error.code == "NoSuchKey" || error.status == 404 {
                throw MediaError(.inputObjectMissing, "input \(input.name) of job \(id) is not in the bucket: \(error)")
            }
            throw MediaError(.storageUnavailable, "input \(input.name) could not be read from the bucket: \(error)")
        }
    }

    /// Streams `key` into `upload`, taking a cut GET up again from where it stopped.
    private func get(
        _ key: String, _ input: JobInput, into upload: UploadFile, threadPool: NIOThreadPool,
        resumed: @escaping @Sendable (Int64) -> Void
    ) async throws {
        var resumes = 0
        while true {
            let from = upload.size
            do {
                // A GET cut after the last byte has nothing left to ask for.
                if from > 0, from >= input.size { return }
                try await client.getObject(key, range: from > 0 ? from...(input.size - 1) : nil) { chunk in
                    try Task.checkCancellation()
                    guard upload.size + Int64(chunk.readableBytes) <= input.size else {
                        throw Self.mismatch(input, size: nil, sha256: nil)
                    }
                    try await threadPool.runIfActive { try chunk.withUnsafeReadableBytes { try upload.write($0) } }
                }
                return
            } catch let error as S3Error where error.isRetryable && upload.size > from && resumes < Self.stagingResumes
            {
                resumes += 1
                resumed(upload.size)
            }
        }
    }

    /// `input_object_mismatch`: the object is not the file the job recorded (`size` and `sha256` when read
    /// whole, nil when it is longer).
    private static func mismatch(_ input: JobInput, size: Int64?, sha256: String?) -> MediaError {
        let found = size.map { "\($0) bytes of SHA-256 \(sha256 ?? "")" } ?? "more than \(input.size) bytes"
        return MediaError(
            .inputObjectMismatch,
            "input \(input.name) in the bucket is \(found); the job recorded \(input.size) bytes of SHA-256 \(input.sha256)"
        )
    }
}

extension NIOThreadPool {
    /// Deletes a file, off the event loop; one already gone is fine.
    fileprivate func remove(_ path: String) async {
        try? await runIfActive { _ = unlink(path) }
    }
}
