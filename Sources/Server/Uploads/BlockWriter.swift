import Dispatch
import JobStore
import MediadRuntime
import NIOCore
import NIOPosix

/// Where a `BlockWriter`'s blocks go. Each block is appended (in order, one call at a time, on the thread
/// pool) and digested (in the same order, one call at a time, on a digest thread of its own).
protocol BlockSink: AnyObject, Sendable {
    func append(_ pieces: [UnsafeRawBufferPointer]) throws
    func digest(_ pieces: [UnsafeRawBufferPointer])
}

extension UploadFile: BlockSink {}
extension ResumableWriter: BlockSink {}

/// Gathers body bytes into blocks of about `UploadReceiver.blockSize`, appends each block to a sink (an
/// upload file, a tus upload) on the thread pool and digests it on a thread of its own.
///
/// A block is the socket's own buffers, handed to the sink whole (one `writev`), not copied into a block
/// buffer first: that copy was a sixth of an upload's CPU. Only a chunk that would pin much more memory
/// than it holds (a few bytes in a large read buffer, from a slow or trickling client) is copied, into a
/// buffer of the writer's, so a block never holds more than about twice its bytes.
///
/// Three blocks are under way at once: the connection gathers one while the previous is appended and the
/// one before that digested. SHA-256 is the slowest of the three (about 1.8 GB/s a core with the CPU's
/// SHA instructions, against the kernel's copies into and out of the page cache), so the digest thread
/// works without waiting for the disk or the socket, and they without waiting for it. The socket is still
/// read only as fast as the blocks are taken (a full block waits for the previous append, and for the
/// digest of the block before), so memory stays at a few blocks per upload whatever the file size.
final class BlockWriter<Sink: BlockSink> {
    let sink: Sink
    private let threadPool: NIOThreadPool
    private var block = GatheredBlock()
    /// The append under way, if any.
    private var appending: Task<Void, any Error>?
    /// The digests of the last two blocks, oldest first; each starts when the one before has ended.
    private var digesting: [Task<Void, Never>] = []
    /// With `--objects`, the put into the bucket fed from the file as blocks land in it.
    var object: InputObjectPut?
    /// With `--objects`, the parts of a tus upload cut from its data file as blocks land in it.
    var parts: UploadPartFeed?
    /// Bytes appended to the sink so far, and those of the append under way.
    private var appended: Int64 = 0
    private var appendingCount: Int64 = 0

    init(sink: Sink, threadPool: NIOThreadPool) {
        self.sink = sink
        self.threadPool = threadPool
    }

    func append(_ chunk: ByteBuffer) async throws {
        block.append(chunk)
        if block.count >= UploadReceiver.blockSize { try await flush() }
    }

    /// Writes what has been gathered and waits until every block has been appended and digested.
    func drain() async throws {
        try await flush()
        try await completeAppend()
        await completeDigests()
    }

    /// Waits for the append and digests under way, whatever their outcome: after it the sink is no longer
    /// used.
    func settle() async {
        try? await completeAppend()
        await completeDigests()
    }

    /// Starts appending and digesting the gathered block and goes on gathering the next (once the previous
    /// block is appended and the one before it digested).
    private func flush() async throws {
        guard block.count > 0 else { return }
        try await completeAppend()
        if digesting.count == 2 { await digesting.removeFirst().value }
        appendingCount = Int64(block.count)
        let buffers = block.take()
        let (sink, threadPool, previous) = (self.sink, self.threadPool, digesting.last)
        appending = Task {
            try await threadPool.runIfActive {
                try GatheredBlock.withPieces(buffers[...], []) { try sink.append($0) }
            }
        }
        digesting.append(
            Task {
                await previous?.value
                await withCheckedContinuation { done in
                    DispatchQueue.global().async {
                        GatheredBlock.withPieces(buffers[...], []) { sink.digest($0) }
                        done.resume()
                    }
                }
            })
    }

    /// Waits for the append under way, if any; the bytes it appended then feed the object's put.
    private func completeAppend() async throws {
        guard let appending else { return }
        self.appending = nil
        try await appending.value
        appended += appendingCount
        appendingCount = 0
        try await object?.grew(to: appended)
        try await parts?.grew(to: appended)
    }

    /// Waits for every digest under way.
    private func completeDigests() async {
        while !digesting.isEmpty { await digesting.removeFirst().value }
    }
}

extension BlockWriter where Sink == UploadFile {
    /// A writer into a new upload file of the store; with `object`, the file also goes into the bucket by
    /// the put that `object` makes for the file's path, fed as the file grows.
    convenience init(
        store: JobStore, threadPool: NIOThreadPool, object: ((_ path: String) -> InputObjectPut?)? = nil
    ) async throws {
        self.init(sink: try await threadPool.runIfActive { try store.makeUpload() }, threadPool: threadPool)
        self.object = object?(sink.path)
    }

    /// The file, synced, once its object (if any) is complete in the bucket. When the object cannot be
    /// completed the file is removed and the put aborted.
    func finish() async throws -> UploadedFile {
        try await drain()
        let upload = sink
        let file = try await threadPool.runIfActive { try upload.finish() }
        guard let object, file.size > 0 else { return file }
        do {
            try await object.finish(size: file.size, sha256: file.sha256)
        } catch {
            await object.abort()
            await threadPool.removeUpload(at: file.path)
            throw error
        }
        return file
    }

    /// Removes the file and aborts its put into the bucket.
    func discard() async {
        await settle()
        await object?.abort()
        let upload = sink
        try? await threadPool.runIfActive { upload.discard() }
    }
}
