import JobStore
import NIOCore
import NIOPosix

/// Where a `BlockWriter`'s blocks go: written in order, one call at a time, on the thread pool.
protocol BlockSink: AnyObject, Sendable {
    func write(_ pieces: [UnsafeRawBufferPointer]) throws
}

extension UploadFile: BlockSink {}
extension ResumableWriter: BlockSink {}

/// Gathers body bytes into blocks of about `UploadReceiver.blockSize` and writes each block to a sink (an
/// upload file, a tus upload) on the thread pool.
///
/// A block is the socket's own buffers, handed to the sink whole (one `writev`), not copied into a block
/// buffer first: that copy was a sixth of an upload's CPU. Only a chunk that would pin much more memory
/// than it holds (a few bytes in a large read buffer, from a slow or trickling client) is copied, into a
/// buffer of the writer's, so a block never holds more than about twice its bytes.
///
/// While one block is written and hashed on the pool, the connection gathers the next, so reading the
/// socket overlaps with the disk and the hash instead of stopping for them. The socket is still read only
/// as fast as the disk takes the data (a full block waits for the previous write), so memory stays at two
/// blocks per upload whatever the file size.
final class BlockWriter<Sink: BlockSink> {
    let sink: Sink
    private let threadPool: NIOThreadPool
    private var block = GatheredBlock()
    /// The write under way, if any.
    private var writing: Task<Void, any Error>?

    init(sink: Sink, threadPool: NIOThreadPool) {
        self.sink = sink
        self.threadPool = threadPool
    }

    func append(_ chunk: ByteBuffer) async throws {
        block.append(chunk)
        if block.count >= UploadReceiver.blockSize { try await flush() }
    }

    /// Writes what has been gathered and waits until every write has reached the sink.
    func drain() async throws {
        try await flush()
        try await completeWrite()
    }

    /// Waits for the write under way, if any, whatever its outcome: after it the sink is no longer written.
    func settle() async {
        try? await completeWrite()
    }

    /// Starts writing the gathered block and goes on gathering the next (once the previous write is done).
    private func flush() async throws {
        guard block.count > 0 else { return }
        try await completeWrite()
        let buffers = block.take()
        let (sink, threadPool) = (self.sink, self.threadPool)
        writing = Task {
            try await threadPool.runIfActive {
                try GatheredBlock.withPieces(buffers[...], []) { try sink.write($0) }
            }
        }
    }

    /// Waits for the write under way, if any.
    private func completeWrite() async throws {
        guard let writing else { return }
        self.writing = nil
        try await writing.value
    }
}

extension BlockWriter where Sink == UploadFile {
    /// A writer into a new upload file of the store.
    convenience init(store: JobStore, threadPool: NIOThreadPool) async throws {
        self.init(sink: try await threadPool.runIfActive { try store.makeUpload() }, threadPool: threadPool)
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
