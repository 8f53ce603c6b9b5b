import Foundation
import TestSupport

/// A TCP proxy on loopback in front of a server that cuts the first `PATCH` it carries after `cutAfter`
/// bytes of the request (both sides closed), and passes everything else through: a network that breaks
/// in the middle of an upload. A Python process, stopped when the proxy is released.
final class CuttingProxy {
    private let process = Process()
    private let scratch: Scratch
    let port: Int

    init(to serverPort: Int, cutAfter: Int) throws {
        scratch = try Scratch("proxy")
        let script = try scratch.write(
            "proxy.py",
            Array(
                """
                import socket, sys, threading
                listener = socket.socket()
                listener.bind(("127.0.0.1", 0))
                listener.listen(16)
                print(listener.getsockname()[1], flush=True)
                cut = {"done": False}
                def pipe(source, target, limit):
                    sent = 0
                    try:
                        while True:
                            data = source.recv(65536)
                            if not data:
                                break
                            if limit is not None and sent + len(data) >= limit:
                                target.sendall(data[:limit - sent])
                                break
                            target.sendall(data)
                            sent += len(data)
                    except OSError:
                        pass
                    for end in (source, target):
                        try:
                            end.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
                def serve(client):
                    upstream = socket.create_connection(("127.0.0.1", \(serverPort)))
                    first = client.recv(65536, socket.MSG_PEEK)
                    limit = None
                    if first.startswith(b"PATCH") and not cut["done"]:
                        cut["done"] = True
                        limit = \(cutAfter)
                    threading.Thread(target=pipe, args=(upstream, client, None), daemon=True).start()
                    pipe(client, upstream, limit)
                while True:
                    connection, _ = listener.accept()
                    threading.Thread(target=serve, args=(connection,), daemon=True).start()
                """.utf8))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { throw StartFailure() }
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw StartFailure() }
        self.port = port
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    struct StartFailure: Error {}

    /// SIGKILL: the proxy inherits the test runner's signal mask, in which SIGTERM may be blocked.
    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
