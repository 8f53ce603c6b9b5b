import Glibc
import MediadHTTP
import NIOCore

/// A fixed buffer in which body bytes are gathered before they go to disk in one write.
///
/// Owned by one `BlockWriter`, which hands it whole to the pool thread that writes it and takes it back
/// afterwards, so it is never touched from two threads at once (hence `@unchecked Sendable`). Allocated
/// once per upload and reused, so receiving a file allocates nothing per chunk.
///
/// The memory is mapped for the block alone and unmapped with it: pages count only once bytes land in
/// them, and every byte goes back to the system when the upload ends. From malloc, freed blocks of this
/// size raise glibc's mmap threshold and stay in its arenas: 1000 slow uploads left 1.4 GB held after
/// they had gone.
final class UploadBlock: @unchecked Sendable {
    private let memory: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    /// Throws 503 `server_busy` when the system has no memory for another block.
    init(capacity: Int) throws {
        let mapping = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapping, mapping != MAP_FAILED else {
            throw ServiceError(
                .serviceUnavailable, "server_busy", "the server has no memory for another upload now; retry later",
                headers: [("Retry-After", "5")])
        }
        memory = UnsafeMutableRawBufferPointer(start: mapping, count: capacity)
    }

    deinit { munmap(memory.baseAddress, memory.count) }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == memory.count }

    /// The bytes gathered so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: memory[0..<count]) }

    /// Moves as many readable bytes of `buffer` as fit into the block.
    func take(from buffer: inout ByteBuffer) {
        let length = min(buffer.readableBytes, memory.count - count)
        buffer.withUnsafeReadableBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: memory[count..<count + length])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<length]))
        }
        buffer.moveReaderIndex(forwardBy: length)
        count += length
    }

    /// Empties the block for reuse.
    func reset() { count = 0 }
}
