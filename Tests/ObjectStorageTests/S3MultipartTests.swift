import Foundation
import MediadClient
import ObjectStorage
import TestSupport
import Testing

/// Multipart uploads against a real S3 server (SeaweedFS through `TestSupport.SeaweedFS`): three parts assembled into
/// the object boto3 reads back, and an aborted upload gone from the listing.
@Suite struct S3MultipartTests {
    @Test func threePartsAreAssembledAndAnAbortedUploadIsNoLongerListed() async throws {
        let s3 = try SeaweedFS()
        let client = try s3.client(prefix: "multi")
        let mebibytes5 = 5 << 20
        let parts = [
            S3ClientTests.bytes(mebibytes5, seed: 1), S3ClientTests.bytes(mebibytes5, seed: 2),
            S3ClientTests.bytes(123_457, seed: 3),
        ]
        let id = try await client.createMultipartUpload("big file.mp4", contentType: "video/mp4")
        #expect(try await client.listMultipartUploads().contains { $0.key == "big file.mp4" && $0.uploadID == id })
        var stored: [S3Client.Part] = []
        // The second part goes up from a file, unsigned; the others from memory, with their hashes.
        let file = try s3.scratch.write("part2.bin", parts[1])
        for (index, bytes) in parts.enumerated().reversed() {
            let number = index + 1
            let part =
                number == 2
                ? try await client.uploadPart("big file.mp4", uploadID: id, number: number, body: .file(file))
                : try await client.uploadPart(
                    "big file.mp4", uploadID: id, number: number, body: .bytes(bytes),
                    sha256Hex: SigV4Signer.sha256Hex(bytes))
            #expect(part.number == number && !part.etag.isEmpty)
            stored.append(part)
        }
        try await client.completeMultipartUpload("big file.mp4", uploadID: id, parts: stored)
        let whole = parts.flatMap { $0 }
        let read = try s3.read("multi/big file.mp4")
        #expect(read["sha256"] as? String == SigV4Signer.sha256Hex(whole))
        #expect(read["size"] as? Int == whole.count)
        #expect(try await client.listMultipartUploads().isEmpty)

        let abandoned = try await client.createMultipartUpload("abandoned.mp4")
        _ = try await client.uploadPart("abandoned.mp4", uploadID: abandoned, number: 1, body: .bytes(parts[2]))
        #expect(try await client.listMultipartUploads(prefix: "aband").map(\.uploadID) == [abandoned])
        try await client.abortMultipartUpload("abandoned.mp4", uploadID: abandoned)
        #expect(try await client.listMultipartUploads().isEmpty)
        #expect(try await client.headObject("abandoned.mp4") == nil)
    }
}
