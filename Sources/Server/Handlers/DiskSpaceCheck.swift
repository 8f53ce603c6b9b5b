import JobStore
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// The `--min-free-disk` check every route that receives a body makes before reading it: job
/// submissions, probes and tus chunks alike.
struct DiskSpaceCheck {
    let store: JobStore
    /// The room promised to unfinished resumable uploads.
    let ledger: StorageLedger
    let threadPool: NIOThreadPool

    /// 507 `insufficient_storage` when the body would take the store's disk below `--min-free-disk`,
    /// decided from the head (and `Content-Length`, when sent) before a byte of the body is read. The room
    /// promised to unfinished resumable uploads counts as taken, but for a chunk of the upload `besides`
    /// names, which is its own.
    func check(_ request: Request, besides upload: String? = nil) async throws {
        let length = request.contentLength ?? 0
        let watermark = store.watermark
        let reserved = ledger.reservedUploadBytes(besides: upload)
        do {
            try await threadPool.runIfActive { try watermark.check(adding: length, reserved: reserved) }
        } catch let error as StoreError {
            throw ServiceError(error)
        }
    }
}
