import Foundation

/// Pushes a file that grows front to back to the disk while it is written, and lets the kernel drop the
/// pages already written there, so that writing a large output holds tens of megabytes of page cache
/// instead of all of it.
///
/// Every `DurableFile.writebackInterval` of growth starts the writeback of the new range, so that the
/// closing `fsync` finds most of the file on the disk. With `dropBehind`, the range `lag` intervals behind
/// the end is then advised away (`POSIX_FADV_DONTNEED`). That advice never waits: pages still dirty or
/// under writeback are skipped and stay cached, so a writer faster than the disk is not held to the
/// disk's pace (waiting for each range cost a 1 GB MP4 remux 0.4 s). The pages it frees are the ones the
/// next writes fill, instead of pages the kernel has not handed out lately. On a virtual machine whose
/// host takes freed guest memory back (virtio-balloon free page reporting, as on the Firecracker guest the
/// benchmarks ran on), filling those costs about 1.5 s of kernel time a GB against 0.2 s for pages freed
/// a moment before (`bench/results/2026-11-27-pages.md`).
///
/// Only hints: where a call is missing or fails, `fsync` does all the work as before. A muxer that goes
/// back to amend what it wrote (an `mdat` size, a Matroska seek head, a reserved `moov`) reads the pages
/// it changes back from the disk.
public struct WriteBehind {
    private let fd: Int32
    private let dropBehind: Bool
    /// Where the last writeback started ends: everything before it is on its way to the disk.
    private var started: Int64 = 0
    /// Everything before this offset has been advised away.
    private var dropped: Int64 = 0

    /// How many intervals behind the end the dropped range trails (64 MiB): time enough, at the bench
    /// disk's 1.3 GB/s, for the writeback started there to have ended unless the writer outruns the disk.
    static let lag: Int64 = 8

    /// Tracks `fd`, open on the file being written (open for reading is enough).
    public init(fd: Int32, dropBehind: Bool) {
        self.fd = fd
        self.dropBehind = dropBehind
    }

    /// Tells that the file now holds `size` bytes from its start.
    public mutating func written(upTo size: Int64) {
        guard size - started >= DurableFile.writebackInterval else { return }
        DurableFile.startWriteback(fd, offset: started, length: size - started)
        started = size
        let settled = size - Self.lag * DurableFile.writebackInterval
        guard dropBehind, settled > dropped else { return }
        _ = posix_fadvise(fd, off_t(dropped), off_t(settled - dropped), POSIX_FADV_DONTNEED)
        dropped = settled
    }
}
