import Foundation
import JobStore
import Logging
import MediadRuntime
import ServiceLifecycle

/// Removes tus uploads that have seen no chunk for `--upload-expiry` (and what crashed creations left),
/// every tenth of the expiry (between 1 s and a minute), until shutdown, and then checks the uploads the
/// `StorageLedger` counts against the records, so that what expired (or what another replica finished or
/// deleted) no longer holds quota or reserved disk. Each replica sweeps; an upload a request is writing to
/// (locked, or leased in the database) is never removed under it.
struct ResumableUploadSweeper: Service {
    let records: any UploadRecords
    let expiry: TimeInterval
    let ledger: StorageLedger
    private let logger = Logger(label: "mediad.uploads")

    init(records: any UploadRecords, expiry: TimeInterval, ledger: StorageLedger) {
        self.records = records
        self.expiry = expiry
        self.ledger = ledger
    }

    func run() async throws {
        let period = Duration.seconds(min(60, max(1, expiry / 10)))
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await records.sweep(expiry: expiry)
                    for id in removed { logger.info("upload expired", metadata: ["upload_id": .string(id)]) }
                    let states = try await records.states()
                    let byID = Dictionary(states.map { ($0.upload.id, $0) }, uniquingKeysWith: { first, _ in first })
                    ledger.refreshUploads { byID[$0] }
                } catch is CancellationError {
                    // A shutdown cut the sweep short: nothing failed.
                } catch {
                    logger.warning("sweeping uploads failed", metadata: ["error": .string("\(error)")])
                }
                try? await Task.sleep(for: period)
            }
        }
    }
}
