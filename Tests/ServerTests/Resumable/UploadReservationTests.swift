import Foundation
import TestSupport
import Testing

/// A tus `Upload-Length` is a promise of disk: declared lengths together must fit above the reserve, a
/// finished or deleted upload gives its room back, and each token may hold `--max-pending-uploads`
/// unfinished uploads.
@Suite(.serialized) struct UploadReservationTests {
    static func delete(_ server: ServerProcess, _ location: String, _ extra: [String] = []) throws -> Int {
        try Curl.run(server.url(location), ["-X", "DELETE"] + Tus.version + extra).status
    }

    /// On a 64 MB disk keeping 16 MB free, about 48 MB can be promised, however little has arrived.
    @Test(.enabled(if: TmpfsMount.isAvailable)) func declaredLengthsReserveTheDisk() throws {
        let disk = try TmpfsMount(megabytes: 64)
        let scratch = try Scratch("tus-reservations")
        let server = try ServerProcess(dataDirectory: disk.path + "/data", ["--min-free-disk", "16M"])
        let first = try Tus.create(server, length: 30 << 20)
        #expect(first.status == 201, "\(first.text)")
        let firstLocation = try #require(first.headers["location"])
        let second = try Tus.create(server, length: 30 << 20)
        #expect(second.status == 507, "30 MB are promised already: \(second.text)")
        #expect(second.errorCode == "insufficient_storage")
        #expect(second.errorMessage.contains("promised to unfinished resumable uploads"), "\(second.errorMessage)")
        #expect(disk.freeBytes > 60 << 20, "nothing was written for either")

        #expect(try Self.delete(server, firstLocation) == 204)
        let replacement = try Tus.create(server, length: 30 << 20)
        #expect(replacement.status == 201, "the deleted upload's room is free again: \(replacement.text)")

        // A finished upload holds its bytes instead of a promise; deleting it frees them.
        let small = try Tus.create(server, length: 10 << 20)
        #expect(small.status == 201, "\(small.text)")
        let smallLocation = try #require(small.headers["location"])
        let bytes = try scratch.write("ten", [UInt8](repeating: 1, count: 10 << 20))
        #expect(try Tus.patch(server, smallLocation, offset: 0, file: bytes).status == 204)
        #expect(try Tus.create(server, length: 10 << 20).status == 507, "30 MB promised and 10 MB written")
        #expect(try Self.delete(server, smallLocation) == 204)
        #expect(try Tus.create(server, length: 10 << 20).status == 201)

        // The promises are read back from the store at start.
        server.stop()
        try server.launch()
        let afterRestart = try Tus.create(server, length: 10 << 20)
        #expect(afterRestart.status == 507, "40 MB are still promised: \(afterRestart.text)")
    }

    @Test func eachTokenHoldsAtMostMaxPendingUploadsUnfinished() throws {
        let scratch = try Scratch("tus-pending")
        let tokens = try scratch.write(
            "tokens", Array("alice:alice-token-0123456789\nbob:bob-token-0123456789\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens, "--max-pending-uploads", "2"])
        func bearer(_ name: String) -> [String] { ["-H", "Authorization: Bearer \(name)-token-0123456789"] }
        let one = try Tus.create(server, length: 10, bearer("alice"))
        let two = try Tus.create(server, length: 10, bearer("alice"))
        #expect(one.status == 201 && two.status == 201)
        let three = try Tus.create(server, length: 10, bearer("alice"))
        #expect(three.status == 429, "\(three.text)")
        #expect(three.errorCode == "too_many_uploads")
        #expect(three.errorMessage.contains("--max-pending-uploads"))
        #expect(try Tus.create(server, length: 10, bearer("bob")).status == 201, "bob holds his own")

        // A finished upload is no longer pending, nor is a deleted one.
        let ten = try scratch.write("ten", Array("0123456789".utf8))
        let oneLocation = try #require(one.headers["location"])
        #expect(try Tus.patch(server, oneLocation, offset: 0, file: ten, bearer("alice")).status == 204)
        let afterFinishing = try Tus.create(server, length: 10, bearer("alice"))
        #expect(afterFinishing.status == 201, "\(afterFinishing.text)")
        #expect(try Tus.create(server, length: 10, bearer("alice")).status == 429)
        #expect(try Self.delete(server, try #require(two.headers["location"]), bearer("alice")) == 204)
        #expect(try Tus.create(server, length: 10, bearer("alice")).status == 201)
    }
}
