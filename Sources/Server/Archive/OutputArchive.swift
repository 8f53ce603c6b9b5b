import Foundation
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOPosix
import Synchronization

/// The archive of one job's outputs, written to a response stream.
struct OutputArchive: Sendable {
    /// Where an entry's bytes are read from.
    enum Source: Sendable {
        /// A file in the data directory.
        case file(String)
        /// Output `output` of run `attempt` of job `job` (the run that succeeded) in the bucket of
        /// `--objects`, streamed from the store.
        case object(JobObjects, job: String, attempt: Int, output: String)
    }

    struct Entry: Sendable {
        let name: String
        let source: Source
        let size: Int64
    }

    let entries: [Entry]
    let modified: Int64
    let threadPool: NIOThreadPool

    /// Bytes read from a file at a time.
    static let blockSize = 256 << 10

    /// Writes the archive; stops early when the connection ends or a file cannot be read as its record lists
    /// it. The body then ends inside an entry and without the two end blocks, which tar readers report as
    /// an unexpected end of the archive.
    func send(to writer: StreamWriter) async {
        do {
            for entry in entries {
                try await writer.write(
                    ByteBuffer(bytes: TarHeader(name: entry.name, size: entry.size, modified: modified).blocks))
                switch entry.source {
                case .file(let path): try await sendFile(path, size: entry.size, to: writer)
                case .object(let objects, let job, let attempt, let output):
                    try await sendObject(
                        objects, job: job, attempt: attempt, output: output, size: entry.size, to: writer)
                }
                let padding = TarHeader.padding(after: entry.size)
                if padding > 0 { try await writer.write(ByteBuffer(repeating: 0, count: padding)) }
            }
            try await writer.write(ByteBuffer(bytes: TarHeader.end))
        } catch {
            return
        }
    }

    private func sendFile(_ path: String, size: Int64, to writer: StreamWriter) async throws {
        let descriptor = try await threadPool.runIfActive { () -> Int32 in
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { throw ArchiveReadError() }
            return descriptor
        }
        defer { close(descriptor) }
        var offset: Int64 = 0
        while offset < size {
            let wanted = Int(min(Int64(Self.blockSize), size - offset))
            let position = offset
            let block = try await threadPool.runIfActive { () -> ByteBuffer in
                var buffer = ByteBuffer()
                let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { pointer in
                    max(0, pread(descriptor, pointer.baseAddress, wanted, off_t(position)))
                }
                guard read == wanted else { throw ArchiveReadError() }
                return buffer
            }
            try await writer.write(block)
            offset += Int64(wanted)
        }
    }

    /// Sends the object's bytes as the store gives them, each chunk once the client took the previous one;
    /// an object of another size than the record's stops the archive (its entry would be cut or overrun).
    private func sendObject(
        _ objects: JobObjects, job: String, attempt: Int, output: String, size: Int64, to writer: StreamWriter
    ) async throws {
        let sent = ByteCount()
        try await objects.stream(job: job, attempt: attempt, output: output, range: nil) { chunk in
            guard sent.add(chunk.readableBytes) <= size else { throw ArchiveReadError() }
            try await writer.write(chunk)
        }
        guard sent.total == size else { throw ArchiveReadError() }
    }
}

/// The bytes an object stream has passed on so far.
private final class ByteCount: Sendable {
    private let count = Mutex<Int64>(0)

    /// Adds `bytes` and returns the new total.
    func add(_ bytes: Int) -> Int64 {
        count.withLock {
            $0 += Int64(bytes); return $0
        }
    }
    var total: Int64 { count.withLock { $0 } }
}

/// An output could not be read as its record lists it (removed, or shorter): the archive stops there.
struct ArchiveReadError: Error {}
