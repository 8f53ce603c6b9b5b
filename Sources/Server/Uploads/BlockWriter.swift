import JobStore
import NIOCore
import NIOPosix

/// Where a `BlockWriter`'s blocks go: written in order, one call at a time, on the thread pool.
protocol BlockSink: AnyObject, Sendable {
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

extension UploadFile: BlockSink {}
extension ResumableWriter: BlockSink {}

/// Gathers body bytes into blocks and writes each block to a sink (an upload file, a tus upload) on the
/// thread pool.
///
/// Two blocks take turns: while one is written and hashed on the pool, the connection fills the other,
/// so reading the socket overlaps with the disk and the hash instead of stopping for them. The socket
/// is still read only as fast as the disk takes the data (a full block waits for the previous write),
/// and memory stays at two blocks per upload, allocated once, whatever the file size.
final class BlockWriter<Sink: BlockSink> {
    let sink: Sink
    private let threadPool: NIOThreadPool
    private var filling: UploadBlock
    /// The write under way, if any; it hands its block back, emptied, to be filled again.
    private var writing: Task<UploadBlock, any Error>?

    init(sink: Sink, threadPool: NIOThreadPool) throws {
        self.sink = sink
        self.threadPool = threadPool
        filling = try UploadBlock(capacity: UploadReceiver.blockSize)
    }

    func append(_ chunk: ByteBuffer) async throws {
        var chunk = chunk
        while chunk.readableBytes > 0 {
            filling.take(from: &chunk)
            if filling.isFull { try await flush() }
        }
    }

    /// Writes what has been gathered and waits until every write has reached the sink.
    func drain() async throws {
        try await flush()
        _ = try await completeWrite()
    }

    /// Waits for the write under way, if any, whatever its outcome: after it the sink is no longer written.
    func settle() async {
        _ = try? await completeWrite()
    }

    /// Starts writing the filled block and goes on filling the other one (once its own write is done).
    private func flush() async throws {
        guard !filling.isEmpty else { return }
        let next = try await completeWrite() ?? UploadBlock(capacity: UploadReceiver.blockSize)
        let block = filling
        filling = next
        let (sink, threadPool) = (self.sink, self.threadPool)
        writing = Task {
            try await threadPool.runIfActive {
                try sink.write(block.bytes)
                block.reset()
                return block
            }
        }
    }

    /// Waits for the write under way and returns its emptied block; nil if none was under way.
    private func completeWrite() async throws -> UploadBlock? {
        guard let writing else { return nil }
        self.writing = nil
        return try await writing.value
    }
}

extension BlockWriter where Sink == UploadFile {
    /// A writer into a new upload file of the store.
    convenience init(store: JobStore, threadPool: NIOThreadPool) async throws {
        try self.init(sink: try await threadPool.runIfActive { try store.makeUpload() }, threadPool: threadPool)
    }

    func finish() async throws -> UploadedFile {
        try await drain()
        let upload = sink
        return try await threadPool.runIfActive { try upload.finish() }
    }

    func discard() async {
        await settle()
        let upload = sink
        try? await threadPool.runIfActive { upload.discard() }
    }
}
