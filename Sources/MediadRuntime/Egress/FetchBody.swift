import Foundation
import JobStore
import MediaCore
import MediadClient
import MediadFoundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The head of a fetched input's response, as its sink needs it: whether the body is the input (a 2xx),
/// and the status. A declared length over the limit stops the fetch before any byte is read.
final class FetchHead: Sendable {
    private let lastStatus = Mutex<Int?>(nil)
    private let stopReason = Mutex<MediaError?>(nil)
    private let maxSize: Int64

    init(maxSize: Int64) {
        self.maxSize = maxSize
    }

    var status: Int? { lastStatus.withLock { $0 } }
    var isSuccess: Bool { status.map { (200..<300).contains($0) } ?? false }
    /// Why the body was refused (over the limit, too slow): the client reports a sink's error as a broken
    /// exchange, and this keeps the input's own.
    var refusal: MediaError? { stopReason.withLock { $0 } }

    func accept(_ status: Int, _ headers: HTTPHeaders) throws {
        lastStatus.withLock { $0 = status }
        guard (200..<300).contains(status), let text = headers.first(name: "content-length"),
            let length = Int64(text), length > maxSize
        else { return }
        throw tooLarge(length)
    }

    /// Notes that the body is at least `size` bytes, over the limit, and returns the error that says so.
    func tooLarge(_ size: Int64) -> MediaError {
        refuse(MediaError(.inputTooLarge, "the input is over the \(maxSize)-byte upload limit (\(size) bytes or more)"))
    }

    /// Notes why the body is refused and returns it.
    func refuse(_ error: MediaError) -> MediaError {
        stopReason.withLock { $0 = error }
        return error
    }
}

/// A fetched input's body on its way into an upload file: gathered into 1 MiB blocks, each written and
/// hashed on the thread pool, the total held to the upload limit and the pace to the minimum rate
/// (`TransferPace`, counting only the time spent waiting on the peer, from the response head on).
final class FetchBody: @unchecked Sendable {
    // The client calls `begin` at the head, the sink calls `append` one chunk at a time, each awaited before
    // the next, then `finish` once: never two calls at once.
    private let upload: UploadFile
    private let threadPool: NIOThreadPool
    private let head: FetchHead
    private let maxSize: Int64
    private var pending = ByteBuffer()
    private var received: Int64 = 0
    private var pace: TransferPace
    /// When this side last asked for more of the body: the head's arrival, then each chunk's end.
    private var waitingSince = NIODeadline.now()
    private static let blockSize = 1 << 20

    init(upload: UploadFile, threadPool: NIOThreadPool, head: FetchHead, maxSize: Int64, minimumRate: Int64) {
        self.upload = upload
        self.threadPool = threadPool
        self.head = head
        self.maxSize = maxSize
        pace = TransferPace(minimumRate: minimumRate)
    }

    /// The head arrived: waiting for the body starts now.
    func begin() {
        waitingSince = .now()
    }

    func append(_ chunk: ByteBuffer) async throws {
        defer { waitingSince = .now() }
        guard pace.record(chunk.readableBytes, after: .now() - waitingSince) else {
            let seconds = Double(pace.waited.nanoseconds) / 1e9
            throw head.refuse(
                MediaError(
                    .inputTooSlow,
                    "the input sent \(pace.bytes) bytes over \(String(format: "%.1f", seconds)) s of waiting for it, "
                        + "under the minimum of \(pace.minimumRate) bytes a second (--min-upload-rate)"))
        }
        received += Int64(chunk.readableBytes)
        guard received <= maxSize else { throw head.tooLarge(received) }
        var chunk = chunk
        pending.writeBuffer(&chunk)
        if pending.readableBytes >= Self.blockSize { try await flush() }
    }

    func finish() async throws -> UploadedFile {
        try await flush()
        let upload = self.upload
        return try await threadPool.runIfActive { try upload.finish() }
    }

    private func flush() async throws {
        guard pending.readableBytes > 0 else { return }
        let block = pending
        pending = ByteBuffer()
        let upload = self.upload
        try await threadPool.runIfActive { try block.withUnsafeReadableBytes { try upload.write($0) } }
    }
}
