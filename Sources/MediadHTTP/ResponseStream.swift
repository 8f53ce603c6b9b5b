import NIOCore
import NIOHTTP1
import Synchronization

/// A response body written while it is made, for as long as its producer runs (Server-Sent Events, an
/// archive of a job's outputs).
///
/// The producer gets a `StreamWriter`: each write suspends while the socket will not take more (NIO's
/// back-pressure), so a client that reads slowly slows the producer rather than growing a buffer, and one
/// that stops reading is closed by `SendTimeout`. The body is sent chunked and the connection closes after
/// it. The producer is told, through `StreamWriter.onEnd`, when to stop: the client has closed the
/// connection, or the server is shutting down (`OpenStreams`); it then returns and the response ends with
/// its last chunk, cleanly, unless the producer `abandon`ed it: then the connection is closed without the
/// last chunk, so that the client sees an incomplete transfer rather than a short body taken for whole.
package struct ResponseStream: Sendable {
    package let produce: @Sendable (StreamWriter) async -> Void

    package init(_ produce: @escaping @Sendable (StreamWriter) async -> Void) {
        self.produce = produce
    }
}

/// Writes the chunks of one streamed body and says when the stream must end.
package final class StreamWriter: Sendable {
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    private let end: StreamEnd
    private let sent = Atomic<Int>(0)
    private let abandoned = Atomic<Bool>(false)

    init(_ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, end: StreamEnd) {
        self.outbound = outbound
        self.end = end
    }

    /// Sends `text` as one chunk; throws once the connection is gone.
    package func write(_ text: String) async throws {
        try await write(ByteBuffer(string: text))
    }

    /// Sends `buffer` as one chunk; throws once the connection is gone.
    package func write(_ buffer: ByteBuffer) async throws {
        try await outbound.write(.body(.byteBuffer(buffer)))
        sent.wrappingAdd(buffer.readableBytes, ordering: .relaxed)
    }

    /// Calls `action` once when the stream must end (at once if it already must).
    package func onEnd(_ action: @escaping @Sendable () -> Void) { end.onEnd(action) }

    /// Whether the stream must end: its connection closed or the server stops.
    package var mustEnd: Bool { end.hasEnded }

    /// Marks the body as incomplete: once the producer returns, the connection is closed without the last
    /// chunk (a body whose source failed, such as an output whose job did not succeed).
    package func abandon() { abandoned.store(true, ordering: .relaxed) }

    /// Whether the producer abandoned the body.
    var isAbandoned: Bool { abandoned.load(ordering: .relaxed) }

    /// Bytes written so far, for the access log.
    var bytesSent: Int { sent.load(ordering: .relaxed) }
}

/// The reason a stream ends, once: its connection closed or the server stops. Actions registered after
/// that run at once.
package final class StreamEnd: Sendable {
    private struct State {
        var ended = false
        var actions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    package init() {}

    package func onEnd(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.ended { return true }
            state.actions.append(action)
            return false
        }
        if runNow { action() }
    }

    /// Whether the stream has ended.
    package var hasEnded: Bool { state.withLock { $0.ended } }

    /// Ends the stream: runs every action registered, once.
    package func fire() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.ended else { return [] }
            state.ended = true
            defer { state.actions = [] }
            return state.actions
        }
        for action in actions { action() }
    }
}

/// The streams under way on one server, each until its connection closes, so that shutdown ends each
/// of them cleanly and lets its last chunk go out before the connections are closed.
package final class OpenStreams: Sendable {
    private struct State {
        var stopping = false
        var next = 0
        var streams: [Int: StreamEnd] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Registers `end` until `remove` with the returned key; a server already stopping ends it at once.
    func add(_ end: StreamEnd) -> Int {
        let (key, stopping) = state.withLock { state in
            state.next += 1
            state.streams[state.next] = end
            return (state.next, state.stopping)
        }
        if stopping { end.fire() }
        return key
    }

    func remove(_ key: Int) {
        _ = state.withLock { $0.streams.removeValue(forKey: key) }
    }

    /// Whether no stream's connection is still open.
    var isEmpty: Bool { state.withLock { $0.streams.isEmpty } }

    /// Waits until every stream's connection has closed, or `limit` has passed, or the task is cancelled.
    func closed(within limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while !isEmpty && ContinuousClock.now < deadline {
            guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { return }
        }
    }

    /// Ends every stream, and every stream that starts from now on.
    func stopAll() {
        let ends = state.withLock { state in
            state.stopping = true
            return Array(state.streams.values)
        }
        for end in ends { end.fire() }
    }
}
