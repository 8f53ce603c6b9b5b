import Foundation
import TestSupport

/// A small tmpfs mounted for one test, so a test can fill a disk for real without touching the machine's.
/// Mounting needs root (as `make test` runs in CI); `isAvailable` tells whether this machine allows it.
final class TmpfsMount: @unchecked Sendable {
    // Immutable after init; owned by one test.
    let path: String
    private let scratch: Scratch

    init(megabytes: Int) throws {
        scratch = try Scratch("tmpfs")
        path = scratch.file("disk")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Command.run("mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
    }

    /// Bytes free on the mount.
    var freeBytes: Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Whether this process may mount a tmpfs (tried once with a tiny one).
    static let isAvailable: Bool = {
        guard geteuid() == 0, let probe = try? TmpfsMount(megabytes: 1) else { return false }
        _ = probe
        return true
    }()

    deinit { _ = try? Command.run("umount", ["-l", path], allowFailure: true) }
}
