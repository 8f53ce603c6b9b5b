import Foundation
import TestSupport
import Testing

/// One data directory, one server on its own: a second real server process (alone, or as a
/// `--shared-store` replica) refuses to start while the first runs, naming `--shared-store`; replicas
/// that all say `--shared-store` start side by side.
@Suite(.serialized) struct StoreLockTests {
    /// `mediad serve` on `data`, expected to exit at once; bounded by `timeout` so that a server that
    /// starts after all fails the test instead of hanging it.
    static func refusedStart(_ data: String, _ arguments: [String] = []) throws -> Command.Output {
        try Command.run(
            "timeout", ["20", ServerProcess.binary, "serve", "--port", "0", "--data-dir", data] + arguments,
            allowFailure: true)
    }

    @Test func aSecondServerOnTheSameDirectoryDoesNotStart() throws {
        let scratch = try Scratch("store-lock")
        let data = scratch.file("data")
        let first = try ServerProcess(dataDirectory: data)
        for arguments in [[], ["--shared-store"]] {
            let second = try Self.refusedStart(data, arguments)
            #expect(second.status != 0 && second.status != 124, "\(arguments): exit \(second.status)")
            let lines = second.stderr.split(separator: "\n")
            #expect(lines.count == 1 && second.stderr.contains("--shared-store"), "\(arguments): \(second.stderr)")
            #expect(second.text.isEmpty, "\(arguments) printed: \(second.text)")
        }
        #expect(try Curl.run(first.url("/healthz")).status == 200)
        first.stop(SIGKILL)
        let next = try ServerProcess(dataDirectory: data)
        #expect(try Curl.run(next.url("/healthz")).status == 200, "the lock goes with the process")
    }

    @Test func replicasShareTheDirectoryAndExcludeALoneServer() throws {
        let scratch = try Scratch("store-lock-shared")
        let data = scratch.file("data")
        let replicas = try ["l1", "l2"].map { try SharedStoreTests.replica($0, data: data) }
        for replica in replicas { #expect(try Curl.run(replica.url("/healthz")).status == 200) }
        let alone = try Self.refusedStart(data)
        #expect(alone.status != 0 && alone.status != 124 && alone.stderr.contains("--shared-store"), "\(alone.stderr)")
    }
}
