import Foundation
import TestSupport
import Testing

/// 200,000 nested `trak` boxes used to overflow the stack of the MP4 box checker: a worker crash, and with
/// `--isolation none` the whole server. The file is now refused as `invalid_input` and the server serves on.
@Suite(.serialized) struct DeepNestingTests {
    static func nestedTracks(depth: Int) -> [UInt8] {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        var nested: [UInt8] = []
        nested.reserveCapacity(depth * 8)
        for level in 0..<depth { nested += bigEndian(8 * (depth - level)) + Array("trak".utf8) }
        let movieHeader =
            bigEndian(108) + Array("mvhd".utf8) + [UInt8](repeating: 0, count: 12) + bigEndian(1000)
            + [UInt8](repeating: 0, count: 84)
        let fileType = bigEndian(16) + Array("ftypisom".utf8) + [0, 0, 2, 0]
        return fileType + bigEndian(8 + movieHeader.count + nested.count) + Array("moov".utf8) + movieHeader + nested
    }

    @Test func serverWithoutIsolationSurvivesDeepNesting() throws {
        let server = try ServerProcess(["--isolation", "none"])
        let scratch = try Scratch("deepnesting")
        let input = try scratch.write("nested.mp4", Self.nestedTracks(depth: 200_000))
        let probe = try Curl.run(server.url("/probe"), ["-T", input])
        #expect((400..<500).contains(probe.status), "\(probe.status) \(probe.text)")
        #expect(probe.errorCode == "invalid_input", "\(probe.text)")
        for kind in ["remux", "demux"] {
            let job = try Curl.run(server.url("/jobs/\(kind)?wait=30"), ["-T", input]).json
            let error = job["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalid_input", "\(kind): \(job)")
            #expect(
                (error?["message"] as? String)?.contains("nested more than 32 levels deep") == true, "\(kind): \(job)")
        }
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }
}
