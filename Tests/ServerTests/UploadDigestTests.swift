import Foundation
import TestSupport
import Testing

/// An upload of many blocks is digested block by block on a thread of its own while the next block is
/// written (`BlockWriter`). The SHA-256 a job records, and a tus chunk's checksum, must be those of the
/// bytes in their order. Pseudo-random bytes (raw PCM, which an encode job takes whatever it holds) make a
/// block digested twice, skipped or out of order change the digest; zeros would not.
@Suite struct UploadDigestTests {
    /// 24 MiB and a little: two dozen full blocks and a short last one.
    static let size = (24 << 20) + 12345
    /// Four blocks and a little: enough for two digests to queue behind an append.
    static let shortSize = (4 << 20) + 4321

    /// The file (in `scratch`, which removes it when released) and its SHA-256.
    static func input(in scratch: Scratch) throws -> (path: String, sha256: String) {
        var bytes = SeededBytes(seed: 20_261_127)
        let path = try scratch.write("noise.pcm", bytes.next(count: size))
        return (path, String(try Command.run("sha256sum", [path]).text.prefix(64)))
    }

    static func recordedDigest(_ reply: Curl.Reply) -> String? {
        (reply.json["inputs"] as? [[String: Any]])?.first?["sha256"] as? String
    }

    /// The multipart upload is a few blocks, not two dozen: multipart-kit's parser, built for debugging as
    /// the tests are, reads about a megabyte a second.
    @Test func rawAndMultipartUploadsRecordTheDigestOfTheirBytes() throws {
        let scratch = try Scratch("upload-digest")
        let (path, sha256) = try Self.input(in: scratch)
        let server = try ServerProcess()
        let raw = try Curl.run(server.url("/jobs/encode?format=wav"), ["-T", path])
        // A raw body's job starts while the body arrives, so it may have ended (on this odd size, failing
        // `partial_frame`) by the time the upload is answered: 200 then, as for any job that has ended.
        #expect([200, 202].contains(raw.status), "\(raw.text)")
        #expect(Self.recordedDigest(raw) == sha256, "\(raw.text)")
        let short = try scratch.write(
            "short.pcm", Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(Self.shortSize)))
        let form = try Curl.run(server.url("/jobs/encode?format=wav"), ["-F", "file=@\(short)"])
        #expect(form.status == 202, "\(form.text)")
        #expect(
            Self.recordedDigest(form) == String(try Command.run("sha256sum", [short]).text.prefix(64)), "\(form.text)")
    }

    /// One `PATCH` of the whole file: its `Upload-Checksum` is checked against the digest of the chunk's
    /// blocks, and the job made from the finished upload records the digest of the file on disk (read back,
    /// so blocks appended out of order would show too). A checksum one byte off is refused with 460.
    @Test func aTusChunkOfManyBlocksIsVerifiedAndStoredInOrder() throws {
        let scratch = try Scratch("upload-digest")
        let (path, sha256) = try Self.input(in: scratch)
        let server = try ServerProcess()
        func checksum(_ hex: String) -> String {
            let bytes = stride(from: 0, to: hex.count, by: 2).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
            }
            return "Upload-Checksum: sha256 " + Data(bytes).base64EncodedString()
        }
        func upload(_ checksumHeader: String) throws -> (location: String, status: Int) {
            let created = try Tus.create(server, length: Self.size)
            let location = try #require(created.headers["location"], "\(created.text)")
            return (location, try Tus.patch(server, location, offset: 0, file: path, ["-H", checksumHeader]).status)
        }
        let wrongDigest = String(sha256.dropLast()) + (sha256.last == "0" ? "1" : "0")
        #expect(try upload(checksum(wrongDigest)).status == 460)
        let (location, status) = try upload(checksum(sha256))
        #expect(status == 204)
        let id = try #require(location.split(separator: "/").last)
        let job = try Curl.run(server.url("/jobs/encode?upload=\(id)&format=wav"), ["-X", "POST"])
        #expect(job.status == 202, "\(job.text)")
        #expect(Self.recordedDigest(job) == sha256, "\(job.text)")
    }
}
