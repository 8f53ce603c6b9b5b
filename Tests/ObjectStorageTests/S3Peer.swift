import Foundation
import MediadClient
import ObjectStorage
import TestSupport

/// SeaweedFS on free loopback ports, through the server tests' `Peers/s3_peer.py`, with boto3 reading
/// objects back as the oracle. It takes seconds to start, so a test starts one and checks several things.
final class S3Peer: @unchecked Sendable {
    // Immutable after init.
    let scratch: Scratch
    let peer: PeerProcess

    /// The key pair `s3_peer.py` gives weed.
    static let credentials = SigningCredentials(
        accessKeyID: "mediadtest", secretAccessKey: "mediadtestsecret0123456789")

    init() throws {
        scratch = try Scratch("s3-client")
        peer = try PeerProcess.script("s3_peer.py", ["serve", scratch.path])
    }

    var endpoint: String { "http://127.0.0.1:\(peer.port)" }

    /// A client of the bucket `mediad` under `prefix`, path-style, retrying quickly.
    func client(prefix: String, credentials: SigningCredentials = S3Peer.credentials, attempts: Int = 3) throws
        -> S3Client
    {
        let location = try S3Location(objects: "s3://mediad/\(prefix)", endpoint: endpoint, pathStyle: true)
        return S3Client(
            location: location, credentials: credentials, http: try HTTPClient(),
            retry: S3RetryPolicy(attempts: attempts, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5)))
    }

    /// The object's SHA-256, size and Content-Type as boto3 reads `key` (a full key) back.
    func read(_ key: String) throws -> [String: Any] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ServerTests/Peers/s3_peer.py").path
        let text = try Command.run("python3", [script, "read", String(peer.port), key]).stdout
        return try JSONSerialization.jsonObject(with: text) as? [String: Any] ?? [:]
    }

    /// Stops weed and removes the gRPC sockets it leaves in /tmp, named by the ports it was given.
    deinit {
        peer.stop()
        let ports = ((try? String(contentsOfFile: scratch.file("ports"), encoding: .utf8)) ?? "")
            .split(separator: "\n")
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []).filter { name in
            name.hasPrefix("seaweedfs-") && ports.contains { name.hasSuffix("-\($0).sock") }
        }
        for name in leftovers { try? FileManager.default.removeItem(atPath: "/tmp/" + name) }
    }
}
