import Digests
import Foundation
import JobStore
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOPosix

/// Sends an output while its job writes it: the bytes the file holds now, then each block the worker
/// appends, until the job ends (`GET /jobs/{id}/outputs/{name}` on a running job, `DownloadHandler.follow`).
///
/// The file the worker writes is opened when the body starts (`DownloadHandler.openWritten`: its temporary
/// name, or the final one once renamed: the same file) and read on the blocking-I/O pool. When a read finds nothing new, the follower waits for the job
/// to end (`JobService.wait`) for at most a delay that starts at `minimumWait` and doubles to `maximumWait`
/// while nothing arrives: no busy wait, and the end is seen at once. After the end it reads to the end of
/// the file; the body ends cleanly only if the job succeeded and listed this output with exactly the size
/// and SHA-256 of the bytes sent. Otherwise (the job failed or was cancelled, or its output was rewritten
/// after all) the body is abandoned: the connection closes without the last chunk, and the client sees an
/// incomplete transfer rather than a short or wrong file taken for whole.
struct OutputFollower: Sendable {
    let jobs: JobService
    let id: String
    let name: String
    /// The job's output directory.
    let directory: String
    let threadPool: NIOThreadPool

    /// Bytes read from the file at a time.
    static let blockSize = 256 << 10
    /// The first and the longest wait for the file to grow.
    static let minimumWait = 0.05
    static let maximumWait = 1.0

    func send(to writer: StreamWriter) async {
        // Hashed here, on the task, a block at a time: the hasher is not shared with the pool's threads.
        let hasher = SHA256Hasher()
        var sent: Int64 = 0
        var wait = Self.minimumWait
        var ended: JobRecord? = nil
        // Opened here, not when the response was made, so that a `HEAD`, whose body never starts, holds none.
        guard
            let descriptor = try? await threadPool.runIfActive({ [name, directory] in
                DownloadHandler.openWritten(name, in: directory)
            })
        else { return writer.abandon() }
        defer { close(descriptor) }
        do {
            while !writer.mustEnd {
                let block = try await read(descriptor, at: sent)
                if block.readableBytes > 0 {
                    block.withUnsafeReadableBytes { hasher.update($0) }
                    try await writer.write(block)
                    sent += Int64(block.readableBytes)
                    wait = Self.minimumWait
                    continue
                }
                // Nothing new: after the job's end, that is the end of the file.
                if let ended { return finish(ended, sent: sent, sha256: hasher.finalize(), writer) }
                if let record = await jobs.wait(for: id, seconds: wait), record.state.isTerminal {
                    ended = record
                } else {
                    wait = min(wait * 2, Self.maximumWait)
                }
            }
        } catch {}
        writer.abandon()
    }

    /// Ends the body cleanly if the job succeeded with this output exactly as sent, else abandons it.
    private func finish(_ record: JobRecord, sent: Int64, sha256: String, _ writer: StreamWriter) {
        let listed = record.outputs.first { $0.name == name }
        let whole = record.state == .succeeded && listed?.size == sent && listed?.sha256 == sha256
        if !whole { writer.abandon() }
    }

    /// Up to `blockSize` bytes from `offset`; empty at the end of what the file holds now.
    private func read(_ descriptor: Int32, at offset: Int64) async throws -> ByteBuffer {
        try await threadPool.runIfActive { [descriptor] () -> ByteBuffer in
            var buffer = ByteBuffer()
            var failed = false
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.blockSize) { pointer in
                let count = pread(descriptor, pointer.baseAddress, Self.blockSize, off_t(offset))
                failed = count < 0
                return max(0, count)
            }
            if failed { throw OutputFollowError() }
            return buffer
        }
    }
}

/// The output could not be read: the follow ends, abandoned.
struct OutputFollowError: Error {}
