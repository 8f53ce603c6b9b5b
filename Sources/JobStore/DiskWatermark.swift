import Foundation

/// The free space kept in reserve on the disk that holds a store (`--min-free-disk`).
///
/// Uploads and job outputs stop with `insufficient_storage` before the disk drops below the watermark, so
/// the disk never fills up under a half-written file, and job records (which are small) can still be
/// saved when it gets tight. A minimum of 0 turns the check off; disk-full errors then still map to
/// `insufficient_storage`.
public struct DiskWatermark: Sendable, Equatable {
    /// A path on the watched disk (the store's root).
    public let path: String
    /// Bytes that must stay free.
    public let minimumFreeBytes: Int64

    public init(path: String, minimumFreeBytes: Int64) {
        self.path = path
        self.minimumFreeBytes = max(0, minimumFreeBytes)
    }

    /// Bytes available to this process on the disk; 0 when that cannot be told, so a caller checking for
    /// room refuses work rather than assuming plenty.
    public func freeBytes() -> Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Throws `insufficient_storage` when writing `bytes` more would leave less than the minimum free, with
    /// `reserved` bytes promised to others besides (the declared rest of unfinished resumable uploads).
    public func check(adding bytes: Int64 = 0, reserved: Int64 = 0) throws {
        guard minimumFreeBytes > 0 else { return }
        let free = freeBytes()
        guard free - bytes - reserved < minimumFreeBytes else { return }
        throw StoreError.insufficientStorage(free: free, minimum: minimumFreeBytes, reserved: reserved)
    }
}

extension StoreError {
    /// `insufficient_storage`: `free` bytes free, `reserved` of them promised to unfinished uploads, and
    /// `minimum` kept.
    public static func insufficientStorage(free: Int64, minimum: Int64, reserved: Int64 = 0) -> StoreError {
        let promised = reserved > 0 ? ", \(reserved) of it promised to unfinished resumable uploads," : ""
        return StoreError(
            code: .insufficientStorage,
            message: "the server's disk has \(free) bytes free\(promised) and keeps \(minimum) in reserve "
                + "(--min-free-disk); retry when finished jobs have been deleted")
    }
}
