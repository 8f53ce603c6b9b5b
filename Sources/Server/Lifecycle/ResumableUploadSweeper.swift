import Foundation
import JobStore
import Logging
import MediadRuntime
import NIOPosix
import ServiceLifecycle

/// Removes tus uploads that have seen no chunk for `--upload-expiry` (and what crashed creations left),
/// every tenth of the expiry (between 1 s and a minute), until shutdown, and then checks the uploads the
/// `StorageLedger` counts against the store, so that what expired (or what another replica finished or
/// deleted) no longer holds quota or reserved disk. Each replica of a shared store sweeps; an upload one
/// of them is writing to is locked, so it is never removed under a request.
struct ResumableUploadSweeper: Service {
    let store: JobStore
    let threadPool: NIOThreadPool
    let expiry: TimeInterval
    let ledger: StorageLedger
    private let logger = Logger(label: "mediad.uploads")

    init(store: JobStore, threadPool: NIOThreadPool, expiry: TimeInterval, ledger: StorageLedger) {
        self.store = store
        self.threadPool = threadPool
        self.expiry = expiry
        self.ledger = ledger
    }

    func run() async throws {
        let period = Duration.seconds(min(60, max(1, expiry / 10)))
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await threadPool.runIfActive { [store, expiry, ledger] in
                        let removed = try store.sweepResumable(expiry: expiry, now: Date())
                        ledger.refreshUploads(store.resumableState(id:))
                        return removed
                    }
                    for id in removed { logger.info("upload expired", metadata: ["upload_id": .string(id)]) }
                } catch {
                    logger.warning("sweeping uploads failed", metadata: ["error": .string("\(error)")])
                }
                try? await Task.sleep(for: period)
            }
        }
    }
}
