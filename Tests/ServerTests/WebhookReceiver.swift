import Foundation

/// A webhook receiver on loopback for the tests: a plain socket server on its own thread that reads each
/// HTTP/1.1 request (head and `Content-Length` body), keeps it, and answers with the status the test
/// chose for that request's number. Call `stop()` when done.
///
/// Not `readingBodies`, it answers from the head alone and then holds the connection without reading
/// further, as a server that refuses a request from its head does, until `stop()`.
final class WebhookReceiver: @unchecked Sendable {
    // `requests`, `statuses`, `serving` and `stopping` are guarded by `lock`. The listening socket is closed once, by `stop()`, and
    // only after the serving thread has left `accept`: closing it earlier would free the descriptor number
    // for another test's socket, which the old thread would then accept on and answer.
    struct Received {
        var target: String
        var headers: [String: String]
        var body: Data
    }

    private let lock = NSLock()
    private var requests: [Received] = []
    private var statuses: [Int]
    /// The connection being read or answered, -1 between connections.
    private var serving: Int32 = -1
    private var stopping = false
    private let listener: Int32
    private let served = DispatchSemaphore(value: 0)
    private let accepting: Bool
    private let readingBodies: Bool
    let port: Int

    /// `statuses[n]` answers the n-th request; requests past the list get its last status. Not
    /// `accepting`, the socket listens (connections open) but no request is ever read or answered.
    init(statuses: [Int], accepting: Bool = true, readingBodies: Bool = true) throws {
        self.statuses = statuses
        self.accepting = accepting
        self.readingBodies = readingBodies
        (listener, port) = try LoopbackListener.listeningSocket()
        if accepting {
            Thread { [self] in
                serve()
                served.signal()
            }.start()
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    var received: [Received] { lock.withLock { requests } }

    /// Changes how the next requests are answered.
    func answer(with status: Int) { lock.withLock { statuses = [status] } }

    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let stopped = lock.withLock {
                serving = client
                return stopping
            }
            if stopped {
                close(client)
                return
            }
            handle(client)
            lock.withLock { serving = -1 }
            close(client)
        }
    }

    private func handle(_ client: Int32) {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        func readMore() -> Bool {
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { return false }
            data.append(contentsOf: buffer[0..<count])
            return true
        }
        let separator = Data("\r\n\r\n".utf8)
        while data.range(of: separator) == nil { guard readMore() else { return } }
        let headEnd = data.range(of: separator)!
        let lines = String(decoding: data[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        let length = readingBodies ? Int(headers["content-length"] ?? "0") ?? 0 : 0
        while data.count - headEnd.upperBound < length { guard readMore() else { return } }
        let body = data[headEnd.upperBound..<(headEnd.upperBound + length)]
        let target = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let status = lock.withLock { () -> Int in
            let status = statuses[min(requests.count, statuses.count - 1)]
            requests.append(Received(target: target, headers: headers, body: Data(body)))
            return status
        }
        let response = "HTTP/1.1 \(status) Test\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
        _ = response.withCString { write(client, $0, strlen($0)) }
        if !readingBodies {
            // The answer is complete (the write side ends); the rest of the body stays unread until `stop()`
            // shuts the connection down, which wakes this poll.
            shutdown(client, Int32(SHUT_WR))
            var held = pollfd(fd: client, events: 0, revents: 0)
            while poll(&held, 1, -1) < 0 && errno == EINTR {}
        }
    }

    /// Stops listening and waits for the serving thread to end, then closes the socket. A connection being
    /// served is shut down, so a peer that never sends cannot hold the thread.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        lock.withLock {
            stopping = true
            if serving >= 0 { shutdown(serving, Int32(SHUT_RDWR)) }
        }
        if accepting { served.wait() }
        close(listener)
    }
}
