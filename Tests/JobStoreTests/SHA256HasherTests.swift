import Digests
import Foundation
import JobStore
import TestSupport
import Testing

@Suite struct SHA256HasherTests {
    static func digest(_ text: String) -> String {
        let hasher = SHA256Hasher()
        Array(text.utf8).withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    @Test func matchesKnownVectors() {
        #expect(Self.digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func hashesAMultiMegabyteFileLikeSha256sum() throws {
        let scratch = try Scratch("sha256")
        var random = SeededBytes(seed: 7)
        let bytes = random.next(count: 5 * 1024 * 1024 + 12345)
        let path = try scratch.write("big.bin", bytes)

        let expected = try Command.run("sha256sum", [path]).text.split(separator: " ").first.map(String.init)
        let (size, sha256) = try SHA256Hasher.hexDigest(ofFileAt: path)
        #expect(size == Int64(bytes.count))
        #expect(sha256 == expected)

        // Fed in uneven pieces, the digest is the same.
        let hasher = SHA256Hasher()
        var offset = 0
        for piece in [1, 1000, 65537, 3 * 1024 * 1024] {
            bytes[offset..<offset + piece].withUnsafeBytes { hasher.update($0) }
            offset += piece
        }
        bytes[offset...].withUnsafeBytes { hasher.update($0) }
        #expect(hasher.finalize() == expected)
    }

    @Test func missingFileIsNotFound() throws {
        let scratch = try Scratch("sha256")
        let error = #expect(throws: StoreError.self) { try SHA256Hasher.hexDigest(ofFileAt: scratch.file("none")) }
        #expect(error?.code == "io_error")
    }
}
