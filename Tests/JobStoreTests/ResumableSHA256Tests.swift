import Digests
import Foundation
import TestSupport
import Testing

/// The digest a tus upload carries across replicas: stopped at a block boundary, written as text, read
/// back and resumed, it ends at the digest `sha256sum` computes of the whole.
@Suite struct ResumableSHA256Tests {
    @Test func aDigestResumedFromItsWrittenMidstateIsTheWholeFilesDigest() throws {
        let scratch = try Scratch("resumable-sha256")
        var random = SeededBytes(seed: 11)
        let bytes = random.next(count: 3 * 65536 + 777)
        let path = try scratch.write("whole.bin", bytes)
        let expected = try Command.run("sha256sum", [path]).text.split(separator: " ").first.map(String.init)

        var first = ResumableSHA256()
        bytes[0..<65536].withUnsafeBytes { first.update($0) }
        #expect(first.midstate?.count == 65536)
        let written = try #require(first.midstate).description
        var second = ResumableSHA256(resuming: try #require(ResumableSHA256.Midstate(written)))
        bytes[65536..<(2 * 65536 + 64)].withUnsafeBytes { second.update($0) }
        let secondState = try #require(second.midstate)
        let again = try #require(ResumableSHA256.Midstate(secondState.description))
        var third = ResumableSHA256(resuming: again)
        bytes[(2 * 65536 + 64)...].withUnsafeBytes { third.update($0) }
        #expect(third.midstate == nil, "not at a block boundary")
        #expect(third.finalize() == expected)
    }

    @Test func onlyAWrittenMidstateReadsBack() {
        #expect(ResumableSHA256.Midstate("64:" + String(repeating: "0", count: 64)) != nil)
        #expect(ResumableSHA256.Midstate("65:" + String(repeating: "0", count: 64)) == nil, "not a whole block")
        #expect(ResumableSHA256.Midstate("64:" + String(repeating: "0", count: 63)) == nil)
        #expect(ResumableSHA256.Midstate("64:" + String(repeating: "g", count: 64)) == nil)
        #expect(ResumableSHA256.Midstate("") == nil)
    }
}
