import Foundation
import TestSupport

/// Python socket clients, for what curl will not do: broken HTTP, clients that stall or never read,
/// hundreds of connections at once.
enum Python {
    /// Runs `script` (which must bound its own time) and returns what it printed.
    static func run(_ script: String) throws -> String {
        let scratch = try Scratch("python")
        let file = try scratch.write("client.py", Array(script.utf8))
        return try Command.run("python3", [file]).text
    }

    /// Sends `request`, then `padding` zero bytes, on one connection, and returns what the server answers
    /// up to its close (5 s at most). Sending stops quietly where the server stops reading. With
    /// `halfClose`, the client then shuts its side for writing, as a client that is done sending does.
    static func exchange(port: Int, _ request: String, padding: Int = 0, halfClose: Bool = false) throws -> String {
        try run(
            """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(port)), timeout=5)
            try:
                s.sendall(bytes.fromhex("\(Array(request.utf8).map { String(format: "%02x", $0) }.joined())") + bytes(\(padding)))
                if \(halfClose ? "True" : "False"):
                    s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            data = b""
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
            except OSError:
                pass
            sys.stdout.write(data.decode("latin-1"))
            """)
    }
}
