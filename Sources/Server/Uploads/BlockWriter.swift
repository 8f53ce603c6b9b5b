import JobStore
import NIOCore
import NIOPosix

/// Gathers body bytes into blocks and writes each block to an upload file on the thread pool.
final class BlockWriter {
    private let upload: UploadFile
    private let threadPool: NIOThreadPool
    private var pending: ByteBuffer

    init(store: JobStore, threadPool: NIOThreadPool) async throws {
        self.threadPool = threadPool
        upload = try await threadPool.runIfActive { try store.makeUpload() }
        pending = ByteBufferAllocator().buffer(capacity: UploadReceiver.blockSize)
    }

    func append(_ chunk: ByteBuffer) async throws {
        var chunk = chunk
        pending.writeBuffer(&chunk)
        if pending.readableBytes >= UploadReceiver.blockSize { try await flush() }
    }

    func finish() async throws -> UploadedFile {
        try await flush()
        let upload = self.upload
        return try await threadPool.runIfActive { try upload.finish() }
    }

    func discard() async {
        let upload = self.upload
        try? await threadPool.runIfActive { upload.discard() }
    }

    private func flush() async throws {
        guard pending.readableBytes > 0 else { return }
        let block = pending
        pending.clear()
        let upload = self.upload
        try await threadPool.runIfActive {
            try block.withUnsafeReadableBytes { try upload.write($0) }
        }
    }
}
