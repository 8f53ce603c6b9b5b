import Logging
import MediadRuntime
import ObjectStorage
import ServiceLifecycle

/// Notices the return of an object store that stopped answering: while the client's `StoreReachability`
/// says unreachable (and submissions get 503 `storage_unavailable`), it looks the bucket up every
/// `period`, and the first answer opens the server to jobs again. A store that answers costs nothing here.
struct ObjectStoreWatch: Service {
    let objects: JobObjects
    var period: Duration = .seconds(2)
    private let logger = Logger(label: "mediad.objects")

    init(objects: JobObjects) {
        self.objects = objects
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var reported = false
            while !Task.isCancelled {
                if !objects.isReachable {
                    if !reported {
                        logger.warning("the object store does not answer; submissions get 503 until it does")
                        reported = true
                    }
                    _ = try? await objects.client.bucketExists()
                }
                if reported && objects.isReachable {
                    logger.info("the object store answers again")
                    reported = false
                }
                try? await Task.sleep(for: period)
            }
        }
    }
}
