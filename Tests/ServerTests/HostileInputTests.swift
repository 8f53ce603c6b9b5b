import Foundation
import TestSupport
import Testing

/// Files made to attack the service: each is refused or fails with a clear code, nothing leaks, and the
/// server carries on.
@Suite(.serialized) struct HostileInputTests {
    let server: ServerProcess
    let scratch: Scratch

    init() throws {
        server = try ServerProcess()
        scratch = try Scratch("hostile")
    }

    /// Jobs and uploads in the data directory: refused requests must leave neither.
    func storeListing() throws -> (jobs: [String], uploads: [String]) {
        (
            try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs"),
            try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads")
        )
    }

    @Test func playlistPointingAtAnotherJobsInputIsRefused() throws {
        let victim = try Curl.run(server.url("/jobs/remux?wait=30"), ["-T", try Fixtures.h264AacMP4()]).json
        let victimID = try #require(victim["id"] as? String)
        let secret = server.dataDirectory + "/jobs/\(victimID)/inputs/input"
        #expect(FileManager.default.fileExists(atPath: secret))
        let playlist = try scratch.write(
            "talk.mp4", Array("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile://\(secret)\n#EXT-X-ENDLIST\n".utf8)
        )
        for kind in ["remux", "demux", "decode"] {
            let reply = try Curl.run(server.url("/jobs/\(kind)"), ["-T", playlist])
            #expect(reply.status == 415, "\(kind): \(reply.text)")
            #expect(reply.errorCode == "unsupported_format")
            #expect(reply.text.contains("HLS playlist"))
        }
        let probe = try Curl.run(server.url("/probe"), ["-T", playlist])
        #expect(probe.status == 415)
        #expect(try storeListing().jobs == [victimID])
        #expect(try storeListing().uploads.isEmpty)
    }

    /// A playlist whose segments live on a loopback HTTP listener: refused at upload as a playlist, and,
    /// dressed as an MP4 (an `ftyp` box, the playlist in a `free` box) so that it passes the upload check,
    /// read only by the MP4 demuxer, which finds no movie in it. Either way nothing ever connects to the listener.
    @Test func playlistPointingAtALoopbackListenerMakesNoRequest() throws {
        let listener = try LoopbackListener()
        let text = Array(
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nhttp://127.0.0.1:\(listener.port)/segment.ts\n#EXT-X-ENDLIST\n"
                .utf8)
        let playlist = try scratch.write("playlist.mp4", text)
        for kind in ["remux", "demux", "decode"] {
            #expect(try Curl.run(server.url("/jobs/\(kind)"), ["-T", playlist]).status == 415, "\(kind)")
        }
        #expect(try Curl.run(server.url("/probe"), ["-T", playlist]).status == 415)
        let ftyp: [UInt8] = [0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 2, 0]
        let free = withUnsafeBytes(of: UInt32(8 + text.count).bigEndian, Array.init) + Array("free".utf8) + text
        let disguised = try scratch.write("disguised.mp4", ftyp + free)
        let job = try Curl.run(server.url("/jobs/remux?wait=30"), ["-T", disguised]).json
        #expect(job["state"] as? String == "failed", "\(job)")
        #expect((job["error"] as? [String: Any])?["code"] as? String == "invalid_input", "\(job)")
        let probe = try Curl.run(server.url("/probe"), ["-T", disguised])
        #expect(probe.status == 422, "\(probe.text)")
        #expect(listener.acceptedConnections() == 0, "libav made a request to the listener")
    }

    /// Option values too large for an integer used to trap the server while it validated the query:
    /// one request stopped the service. They are `invalid_option` like any value out of range.
    /// A part header name with a byte outside ASCII (schemathesis found it) once trapped in the multipart
    /// parser and took the server down; it is a 400, split across chunks or not, and a non-ASCII file name
    /// in a header value is still fine.
    @Test func nonASCIIPartHeaderNamesAreRefusedAndTheServerCarriesOn() throws {
        for path in ["/probe", "/jobs/remux"] {
            for body in [
                "--b\r\n\u{DC}--b--\r\n",
                "--b\r\nContent-Disposition: form-data; name=\"file\"\r\nX-\u{E9}: 1\r\n\r\nx\r\n--b--\r\n",
            ] {
                let reply = try Curl.run(
                    server.url(path),
                    ["-H", "Content-Type: multipart/form-data; boundary=b", "--data-binary", body])
                #expect(reply.status == 400 && reply.errorCode == "invalid_request", "\(path): \(reply.text)")
            }
        }
        let named = try Curl.run(
            server.url("/probe"), ["-F", "file=@\(try Fixtures.h264AacMP4());filename=t\u{E4}lk.mp4"])
        #expect(named.status == 200, "\(named.text)")
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }

    @Test func hugeOptionValuesAreRefusedAndTheServerCarriesOn() throws {
        let attempts = [
            ("/jobs/encode?bitrate=1e300", try Fixtures.wav()), ("/jobs/mux?fps=1e300", try Fixtures.adts()),
            ("/jobs/remux?end=1e300", try Fixtures.h264AacMP4()),
        ]
        for (route, file) in attempts {
            let reply = try Curl.run(server.url(route), ["-T", file])
            #expect(reply.status == 400, "\(route): \(reply.text)")
            #expect(reply.errorCode == "invalid_option", "\(route): \(reply.text)")
        }
        #expect(try Curl.run(server.url("/healthz")).status == 200)
        #expect(try storeListing().jobs.isEmpty)
    }

    @Test func concatListsTextAndRandomBytesAreRefused() throws {
        let concat = try scratch.write("list.mp4", Array("ffconcat version 1.0\nfile '/etc/passwd'\n".utf8))
        var generator = SeededBytes(seed: 11)
        let random = try scratch.write("noise.mp4", generator.next(count: 100_000))
        for file in [concat, random] {
            let reply = try Curl.run(server.url("/jobs/remux"), ["-T", file])
            #expect(reply.status == 415)
            #expect(reply.errorCode == "unsupported_format")
        }
        let wavToDecode = try Curl.run(server.url("/jobs/decode"), ["-T", try Fixtures.wav()])
        #expect(wavToDecode.status == 415)
        #expect(wavToDecode.text.contains("WAV"))
        let mp4ToEncode = try Curl.run(server.url("/jobs/encode"), ["-T", try Fixtures.h264AacMP4()])
        #expect(mp4ToEncode.status == 415)
        // A photo whose length is a whole number of s16 stereo frames would otherwise encode as noise.
        let jpeg = try scratch.write("photo.jpg", [0xFF, 0xD8, 0xFF, 0xE0] + generator.next(count: 39_996))
        for request in [["-T", jpeg], ["-F", "file=@\(jpeg)"]] {
            let jpegToEncode = try Curl.run(server.url("/jobs/encode"), request)
            #expect(jpegToEncode.status == 415, "\(jpegToEncode.text)")
            #expect(jpegToEncode.text.contains("a JPEG image"))
        }
        let wrongMuxPart = try Curl.run(server.url("/jobs/mux"), ["-F", "audio=@\(try Fixtures.wav())"])
        #expect(wrongMuxPart.status == 415)
        #expect(try storeListing().jobs.isEmpty)
        #expect(try storeListing().uploads.isEmpty)
    }

    /// A hundred tracks is a real file (a film with every subtitle language), inside libav's own limit of
    /// 1000 streams: every one is copied (the limit itself is tested in ISOBoxLimitsTests, with a file
    /// the ffmpeg CLI cannot write).
    @Test func aHundredStreamsAreAllCopied() throws {
        let many = scratch.file("many.mkv")
        try Command.run(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.2"] + (0..<100).flatMap { _ in ["-map", "0:a"] }
                + ["-c:a", "pcm_s16le", many])
        let job = try Curl.run(server.url("/jobs/remux?format=mkv&wait=120"), ["-T", many]).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(((job["result"] as? [String: Any])?["tracks"] as? [Any])?.count == 100, "\(job)")
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }

    @Test func hugeDeclaredDimensionsAreRefusedBeforeDecoding() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.h264AacMP4())))
        let table = try #require(
            bytes.indices.first { Array(bytes[$0..<min($0 + 4, bytes.count)]) == Array("stsd".utf8) })
        let entry = try #require(
            (table..<bytes.count).first { Array(bytes[$0..<min($0 + 4, bytes.count)]) == Array("avc1".utf8) })
        // VisualSampleEntry: 24 bytes after the type, then 16-bit width and height.
        bytes.replaceSubrange((entry + 28)..<(entry + 32), with: [0xEA, 0x60, 0xEA, 0x60])
        let huge = try scratch.write("huge.mp4", bytes)
        let probe = try Curl.run(server.url("/probe"), ["-T", huge])
        #expect(probe.status == 422)
        #expect(probe.errorCode == "invalid_input")
        #expect(probe.text.contains("60000x60000"))
        let job = try Curl.run(server.url("/jobs/remux?wait=30"), ["-T", huge]).json
        #expect((job["error"] as? [String: Any])?["code"] as? String == "invalid_input")
    }

    @Test func unexpectedCodecsFailWithTheirCode() throws {
        let mp3 = scratch.file("mp3.mp4")
        try Command.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "libmp3lame", mp3])
        let decode = try Curl.run(server.url("/jobs/decode?wait=30"), ["-T", mp3]).json
        #expect((decode["error"] as? [String: Any])?["code"] as? String == "unsupported_codec")
        let videoOnly = scratch.file("video.mp4")
        try Command.run("ffmpeg", ["-v", "error", "-i", try Fixtures.h264AacMP4(), "-an", "-c", "copy", videoOnly])
        // Asked for samples, a file without audio has none to give (without a format it decodes to frames).
        let noAudio = try Curl.run(server.url("/jobs/decode?format=wav&wait=30"), ["-T", videoOnly]).json
        #expect((noAudio["error"] as? [String: Any])?["code"] as? String == "missing_stream")
    }
}
