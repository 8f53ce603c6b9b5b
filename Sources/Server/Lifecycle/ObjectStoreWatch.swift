import Foundation
import Logging
import MediadRuntime
import ObjectStorage
import ServiceLifecycle

/// Notices the return of an object store that stopped answering, and cleans up after the outage: while the
/// client's `StoreReachability` says unreachable (and submissions get 503 `storage_unavailable`), it looks
/// the bucket up every `period` with one attempt, and the first answer opens the server to jobs again; once
/// the store answers, the uploads and objects that failed puts could not remove (`ObjectLeftovers`) are
/// removed. Every `sweepPeriod` (and at start) it aborts multipart uploads abandoned for a day, such as those
/// of a server stopped during an outage. A store that answers and has nothing to clean costs nothing here.
struct ObjectStoreWatch: Service {
    let objects: JobObjects
    var period: Duration = .seconds(2)
    var sweepPeriod: TimeInterval = 3600
    private let logger = Logger(label: "mediad.objects")

    init(objects: JobObjects) {
        self.objects = objects
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            let probe = JobObjects.once(objects.client)
            var reported = false
            var lastSweep: Date?
            while !Task.isCancelled {
                if !objects.isReachable {
                    if !reported {
                        logger.warning("the object store does not answer; submissions get 503 until it does")
                        reported = true
                    }
                    _ = try? await probe.bucketExists()
                }
                if objects.isReachable {
                    if reported {
                        logger.info("the object store answers again")
                        reported = false
                    }
                    await removeLeftovers()
                    if lastSweep.map({ Date().timeIntervalSince($0) >= sweepPeriod }) ?? true {
                        lastSweep = Date()
                        await sweep()
                    }
                }
                try? await Task.sleep(for: period)
            }
        }
    }

    /// Removes what failed puts left, saying how much.
    private func removeLeftovers() async {
        guard !objects.leftovers.pending.isEmpty else { return }
        let removed = await objects.removeLeftovers()
        if removed > 0 {
            logger.info(
                "removed what failed uploads left in the bucket",
                metadata: ["removed": "\(removed)", "left": "\(objects.leftovers.pending.count)"])
        }
    }

    /// Aborts the multipart uploads abandoned for longer than `JobObjects.abandonedUploadAge`.
    private func sweep() async {
        do {
            let aborted = try await objects.sweepAbandonedUploads(olderThan: JobObjects.abandonedUploadAge)
            if aborted > 0 {
                logger.info("aborted abandoned multipart uploads", metadata: ["aborted": "\(aborted)"])
            }
        } catch {
            logger.warning("the sweep of abandoned multipart uploads failed", metadata: ["error": "\(error)"])
        }
    }
}
