import Dispatch
import Foundation
import MediaCore
import MediaJobs
import Synchronization

/// Stops a running job whose outputs pass what it may write (`OutputAllowance.checkWritten`): with
/// `output_too_large` past `--max-output`, with `quota_exceeded` past what its API token has left.
///
/// This is the check for outputs whose size nobody could tell before they were written (a remux, a
/// package's segments, a decode whose frame count was an estimate). Jobs call `check()` between packets;
/// the job's output directory is measured (the sizes of its files, the temporary ones being written
/// included) at most every `interval`, or fifty times as long as the last measurement took, so that a
/// directory of thousands of segments costs the job no more than 2 % of its time. In a worker process
/// the kernel stops any one file at `--max-output` exactly (RLIMIT_FSIZE); this bounds their sum, and with
/// `--isolation none` every write.
package final class OutputMeter: Sendable {
    private let directory: String
    private let allowance: OutputAllowance
    private let intervalNanoseconds: UInt64
    private let nextCheck = Atomic<UInt64>(0)

    package init(directory: String, allowance: OutputAllowance, interval: Duration = .milliseconds(10)) {
        self.directory = directory
        self.allowance = allowance
        intervalNanoseconds =
            UInt64(interval.components.attoseconds / 1_000_000_000)
            + UInt64(interval.components.seconds) * 1_000_000_000
    }

    /// Throws when the outputs written so far pass the allowance.
    package func check() throws {
        guard allowance.limitsWrites else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let due = nextCheck.load(ordering: .relaxed)
        guard now >= due,
            nextCheck.compareExchange(expected: due, desired: now + intervalNanoseconds, ordering: .relaxed).exchanged
        else { return }
        let written = Self.bytes(under: directory)
        let took = DispatchTime.now().uptimeNanoseconds - now
        nextCheck.store(now + max(intervalNanoseconds, took * 50), ordering: .relaxed)
        try allowance.checkWritten(written)
    }

    /// The sizes of the regular files under `path`, its folders' included; 0 for a directory not there.
    package static func bytes(under path: String) -> Int64 {
        guard let directory = opendir(path) else { return 0 }
        defer { closedir(directory) }
        let descriptor = dirfd(directory)
        var total: Int64 = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG: total += Int64(info.st_size)
            case S_IFDIR: total += bytes(under: path + "/" + name)
            default: break
            }
        }
        return total
    }
}
