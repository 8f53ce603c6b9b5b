import JobStore
import NIOCore
import NIOPosix

/// Gathers body bytes into blocks and writes each block to an upload file on the thread pool.
///
/// Two blocks take turns: while one is written and hashed on the pool, the connection fills the other,
/// so reading the socket overlaps with the disk and the hash instead of stopping for them. The socket
/// is still read only as fast as the disk takes the data (a full block waits for the previous write),
/// and memory stays at two blocks per upload, allocated once, whatever the file size.
final class BlockWriter {
    private let upload: UploadFile
    private let threadPool: NIOThreadPool
    private var filling: UploadBlock
    /// The write under way, if any; it hands its block back, emptied, to be filled again.
    private var writing: Task<UploadBlock, any Error>?

    init(store: JobStore, threadPool: NIOThreadPool) async throws {
        self.threadPool = threadPool
        filling = try UploadBlock(capacity: UploadReceiver.blockSize)
        upload = try await threadPool.runIfActive { try store.makeUpload() }
    }

    func append(_ chunk: ByteBuffer) async throws {
        var chunk = chunk
        while chunk.readableBytes > 0 {
            filling.take(from: &chunk)
            if filling.isFull { try await flush() }
        }
    }

    func finish() async throws -> UploadedFile {
        try await flush()
        _ = try await completeWrite()
        let upload = self.upload
        return try await threadPool.runIfActive { try upload.finish() }
    }

    func discard() async {
        _ = try? await completeWrite()
        let upload = self.upload
        try? await threadPool.runIfActive { upload.discard() }
    }

    /// Starts writing the filled block and goes on filling the other one (once its own write is done).
    private func flush() async throws {
        guard !filling.isEmpty else { return }
        let next = try await completeWrite() ?? UploadBlock(capacity: UploadReceiver.blockSize)
        let block = filling
        filling = next
        let (upload, threadPool) = (self.upload, self.threadPool)
        writing = Task {
            try await threadPool.runIfActive {
                try upload.write(block.bytes)
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
