import Foundation
import MediadClient
import ObjectStorage
import TestSupport
import Testing

/// CopyObject against a real S3 server (SeaweedFS): the store copies an object to another key (names
/// that need encoding included), boto3 reads the copy back whole, and a source that does not exist is
/// the store's `NoSuchKey`.
@Suite struct S3CopyTests {
    @Test func anObjectIsCopiedByTheStoreAndAMissingSourceIsRefused() async throws {
        let s3 = try SeaweedFS()
        let client = try s3.client(prefix: "copy")
        let bytes = S3ClientTests.bytes(300_001, seed: 9)
        try await client.putObject("uploads/a b+c", body: .bytes(bytes), sha256Hex: SigV4Signer.sha256Hex(bytes))
        let etag = try await client.copyObject(from: "uploads/a b+c", to: "jobs/j/inputs/input")
        #expect(!etag.isEmpty)
        let read = try s3.read("copy/jobs/j/inputs/input")
        #expect(read["sha256"] as? String == SigV4Signer.sha256Hex(bytes))
        #expect(read["size"] as? Int == bytes.count)
        #expect(try s3.list("copy/").objects.sorted() == ["copy/jobs/j/inputs/input", "copy/uploads/a b+c"])

        await #expect {
            try await client.copyObject(from: "uploads/none", to: "jobs/j/inputs/other")
        } throws: { error in
            (error as? S3Error)?.code == "NoSuchKey"
        }
    }
}
