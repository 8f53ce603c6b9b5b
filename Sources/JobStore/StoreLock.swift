import Foundation

/// The lock a server holds on its data directory for as long as it runs, so that two servers that each
/// assume they are alone never run the same jobs.
///
/// It is a `flock(2)` on `<root>/serve.lock`: exclusive for a server on its own, shared for the replicas of
/// a `--shared-store`, which coordinate through leases instead. A second server on its own, or a replica
/// next to a server on its own, is refused. The kernel drops the lock when the process ends, however it
/// ends, so a crashed server leaves nothing to clean up; the descriptor is close-on-exec, so the workers a
/// server starts never hold it.
public final class StoreLock: Sendable {
    /// The lock file's name in the data directory.
    public static let fileName = "serve.lock"

    private let descriptor: Int32

    /// Takes the lock on the store at `root` without waiting; throws `store_in_use` when a server that
    /// excludes this one holds it.
    public init(root: String, shared: Bool) throws {
        let path = root + "/" + Self.fileName
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw StoreError.io("cannot open", path) }
        guard flock(descriptor, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            guard code == EWOULDBLOCK else { throw StoreError.io("cannot lock", path, errno: code) }
            let holder = shared ? "a server without --shared-store" : "another mediad serve"
            throw StoreError(
                code: .storeInUse,
                message:
                    "\(holder) is using the data directory \(root) (it holds \(path)); run one server per data "
                    + "directory, or start every server on it with --shared-store")
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
