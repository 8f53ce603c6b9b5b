import Foundation
import ObjectStorage

/// Cleaning up after puts that failed: what the store was too far gone to take back at once is tried
/// again once it answers (`ObjectLeftovers`), and multipart uploads abandoned by a server that stopped
/// before it could abort them are swept.
extension JobObjects {
    /// How old an unfinished multipart upload under `jobs/` must be for the sweep to abort it: no body or
    /// output takes a day to go up, and a bucket lifecycle rule may be shorter.
    package static let abandonedUploadAge: TimeInterval = 24 * 3600

    /// Removes `item` with one attempt (the store just failed a request through its whole retry window, so
    /// another window would only hold the caller's answer), or leaves it to `leftovers` when that fails.
    func clean(_ item: ObjectLeftovers.Item) async {
        await Self.clean(item, with: client, leftovers: leftovers)
    }

    /// `clean(_:)` for a put that holds the client and the leftovers but not the `JobObjects`.
    static func clean(_ item: ObjectLeftovers.Item, with client: S3Client, leftovers: ObjectLeftovers) async {
        do {
            try await remove(item, with: once(client))
        } catch {
            leftovers.add(item)
        }
    }

    /// Removes everything of job `id` after a submission that made no job: at once when the store answers,
    /// else once it does again (the store has just failed a request through its whole retry window, so the
    /// client's answer does not wait another).
    package func discard(job id: String) async {
        await clean(.prefix(Self.prefix(job: id)))
    }

    /// `client` making one attempt per request, never retrying.
    package static func once(_ client: S3Client) -> S3Client {
        var once = client
        once.retry = S3RetryPolicy(window: .zero, attempts: 1)
        return once
    }

    /// Removes what waits in `leftovers`, each with the client's retries; returns how many were removed.
    /// What fails again stays for the next call.
    package func removeLeftovers() async -> Int {
        var removed = 0
        for item in leftovers.pending {
            guard (try? await Self.remove(item, with: client)) != nil else { continue }
            leftovers.done(item)
            removed += 1
        }
        return removed
    }

    /// Aborts the multipart uploads under `jobs/` started more than `age` seconds before `now`; returns how
    /// many. Their parts cost storage, and no upload of mediad's lives that long.
    package func sweepAbandonedUploads(olderThan age: TimeInterval, now: Date = Date()) async throws -> Int {
        var aborted = 0
        for upload in try await client.listMultipartUploads(prefix: "jobs/") {
            guard let initiated = upload.initiated, now.timeIntervalSince(initiated) > age else { continue }
            try await client.abortMultipartUpload(upload.key, uploadID: upload.uploadID)
            aborted += 1
        }
        return aborted
    }

    /// Removes `item` through `client`: aborts the upload, or every upload and object under the prefix. An
    /// upload the store no longer has (completed, or aborted already) is removed.
    static func remove(_ item: ObjectLeftovers.Item, with client: S3Client) async throws {
        switch item {
        case .upload(let key, let uploadID):
            try await abort(key, uploadID: uploadID, with: client)
        case .prefix(let prefix):
            for upload in try await client.listMultipartUploads(prefix: prefix) {
                try await abort(upload.key, uploadID: upload.uploadID, with: client)
            }
            for key in try await client.listObjects(prefix: prefix) { try await client.deleteObject(key) }
        }
    }

    private static func abort(_ key: String, uploadID: String, with client: S3Client) async throws {
        do {
            try await client.abortMultipartUpload(key, uploadID: uploadID)
        } catch let error as S3Error where error.code == "NoSuchUpload" {
            return
        }
    }
}
