import Foundation
import TestSupport
import Testing

/// What `/uploads` answers to requests a good tus client never sends, what it advertises, and whose
/// uploads each API token may touch.
@Suite(.serialized) struct TusProtocolTests {
    @Test func optionsAdvertiseTheProtocolWithoutAToken() throws {
        let scratch = try Scratch("tus-options")
        let tokens = try scratch.write("tokens", Array("alice:alice-token-0123456789\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens, "--max-upload", "10M"])
        let options = try Curl.run(server.url("/uploads"), ["-X", "OPTIONS"])
        #expect(options.status == 204)
        #expect(options.headers["tus-version"] == "1.0.0")
        #expect(options.headers["tus-resumable"] == "1.0.0")
        #expect(options.headers["tus-max-size"] == String(10 << 20))
        #expect(options.headers["tus-checksum-algorithm"] == "sha1,md5,sha256")
        let extensions = Set((options.headers["tus-extension"] ?? "").split(separator: ",").map(String.init))
        #expect(
            extensions == ["creation", "creation-with-upload", "termination", "expiration", "checksum"])
        let exposed = options.headers["access-control-expose-headers"] ?? ""
        for field in ["Upload-Offset", "Location", "Upload-Length", "Upload-Metadata", "Upload-Expires", "Mediad-Job"] {
            #expect(exposed.contains(field), "\(field) in \(exposed)")
        }
        #expect(try Tus.create(server, length: 10).status == 401, "creating needs a token")
    }

    @Test func requestsTusRefusesGetStableCodes() throws {
        let scratch = try Scratch("tus-refusals")
        let server = try ServerProcess(["--max-upload", "1M"])
        let noVersion = try Curl.run(server.url("/uploads"), ["-X", "POST", "-H", "Upload-Length: 10"])
        #expect(noVersion.status == 412)
        #expect(noVersion.errorCode == "unsupported_tus_version")
        #expect(noVersion.headers["tus-version"] == "1.0.0")
        let oldVersion = try Curl.run(
            server.url("/uploads"), ["-X", "POST", "-H", "Tus-Resumable: 0.2.2", "-H", "Upload-Length: 10"])
        #expect(oldVersion.status == 412)
        let refusals: [(reply: Curl.Reply, status: Int, code: String)] = [
            (try Tus.create(server, length: 2 << 20), 413, "payload_too_large"),
            (try Tus.create(server, length: 0), 400, "empty_input"),
            (try Curl.run(server.url("/uploads"), ["-X", "POST"] + Tus.version), 400, "invalid_request"),
            (try Tus.create(server, length: 10, ["-H", "Upload-Defer-Length: 1"]), 400, "invalid_request"),
            (try Tus.create(server, length: 10, metadata: "filename not*base64"), 400, "invalid_metadata"),
            (try Tus.create(server, length: 10, metadata: "kind \(Tus.base64("sharpen"))"), 400, "invalid_option"),
            (
                try Tus.create(server, length: 10, metadata: "kind \(Tus.base64("remux")),format \(Tus.base64("avi"))"),
                400, "invalid_option"
            ),
            (try Tus.create(server, length: 10, metadata: "kind \(Tus.base64("mux"))"), 400, "invalid_option"),
        ]
        for (reply, status, code) in refusals {
            #expect(reply.status == status, "\(reply.text)")
            #expect(reply.errorCode == code, "\(reply.text)")
            #expect(reply.headers["tus-resumable"] == "1.0.0")
        }
        let created = try Tus.create(server, length: 8)
        let location = try #require(created.headers["location"])
        let four = try scratch.write("four", Array("abcd".utf8))
        let wrongType = try Curl.run(
            server.url(location),
            ["-X", "PATCH"] + Tus.version + [
                "-H", "Upload-Offset: 0", "-H", "Content-Type: application/octet-stream",
                "--data-binary", "@\(four)",
            ])
        #expect(wrongType.status == 415)
        #expect(wrongType.errorCode == "unsupported_media_type")
        #expect(try Tus.patch(server, location, offset: 0, file: four).status == 204)
        let mismatch = try Tus.patch(server, location, offset: 0, file: four)
        #expect(mismatch.status == 409)
        #expect(mismatch.errorCode == "offset_mismatch")
        let nine = try scratch.write("nine", Array("123456789".utf8))
        let past = try Tus.patch(server, location, offset: 4, file: nine)
        #expect(past.status == 413, "a chunk may not go past Upload-Length")
        #expect(try Tus.head(server, location).headers["upload-offset"] == "4")
        #expect(try Tus.head(server, "/uploads/AAAAAAAAAAAAAAAAAAAAAA").status == 404)
        #expect(try Curl.run(server.url(location), ["-I"]).status == 412, "HEAD is tus's and needs its version")
    }

    @Test func creationWithUploadTakesTheFirstChunk() throws {
        let scratch = try Scratch("tus-creation-with-upload")
        let server = try ServerProcess()
        let body = try scratch.write("first", Array(repeating: UInt8(ascii: "x"), count: 3000))
        let created = try Tus.create(
            server, length: 5000,
            ["-H", "Content-Type: application/offset+octet-stream", "--data-binary", "@\(body)"])
        #expect(created.status == 201)
        #expect(created.headers["upload-offset"] == "3000")
        let location = try #require(created.headers["location"])
        let state = try Curl.run(server.url(location))
        #expect(state.status == 200)
        #expect(state.json["offset"] as? Int == 3000)
        #expect(state.json["length"] as? Int == 5000)
        #expect(state.headers["cache-control"] == "no-store")
    }

    @Test func anUploadBelongsToTheTokenThatCreatedIt() throws {
        let scratch = try Scratch("tus-tokens")
        let tokens = try scratch.write(
            "tokens",
            Array("alice:alice-token-0123456789\nbob:bob-token-0123456789\nroot:root-token-0123456789:admin\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens])
        func bearer(_ name: String) -> [String] { ["-H", "Authorization: Bearer \(name)-token-0123456789"] }
        let input = try Fixtures.h264AacMP4()
        let reply = try Tuspy.run(
            server, token: "alice-token-0123456789",
            """
            uploader = client.TusClient(ENDPOINT, headers=HEADERS).uploader("\(input)", chunk_size=65536)
            uploader.upload(stop_at=65536)
            result(url=uploader.url)
            """)
        let location = String(try #require(reply["url"] as? String).dropFirst(server.baseURL.count))
        let id = String(location.dropFirst("/uploads/".count))
        let chunk = try scratch.write("chunk", Array(repeating: 0, count: 10))
        #expect(try Tus.head(server, location, bearer("bob")).status == 404)
        #expect(try Curl.run(server.url(location), bearer("bob")).status == 404)
        #expect(try Tus.patch(server, location, offset: 65536, file: chunk, bearer("bob")).status == 404)
        #expect(try Curl.run(server.url(location), ["-X", "DELETE"] + Tus.version + bearer("bob")).status == 404)
        #expect(try Curl.run(server.url("/jobs/remux?upload=\(id)"), ["-X", "POST"] + bearer("bob")).status == 404)
        #expect(try Tus.head(server, location, bearer("root")).status == 200, "an admin sees every upload")
        let own = try Tus.head(server, location, bearer("alice"))
        #expect(own.status == 200)
        #expect(own.headers["upload-offset"] == "65536", "bob's PATCH changed nothing")
    }

    /// The free-disk reserve is checked against the whole `Upload-Length` at creation, before any byte.
    @Test func anUploadTheDiskCannotHoldIsRefusedAtCreation() throws {
        let temporary = FileManager.default.temporaryDirectory.path
        let free = try #require(
            try FileManager.default.attributesOfFileSystem(forPath: temporary)[.systemFreeSize] as? Int64)
        let reserve = free - (1 << 30)
        try #require(reserve > 0, "the test needs more than 1 GiB free")
        let server = try ServerProcess(["--min-free-disk", String(reserve), "--max-upload", "8G"])
        let refused = try Tus.create(server, length: 4 << 30)
        #expect(refused.status == 507)
        #expect(refused.errorCode == "insufficient_storage")
        #expect(try Tus.create(server, length: 1024).status == 201)
    }

    /// While one `PATCH` writes to an upload, another request that would change it gets 423.
    @Test func anUploadBeingWrittenToIsLocked() throws {
        let server = try ServerProcess()
        let created = try Tus.create(server, length: 1000)
        let location = try #require(created.headers["location"])
        let reply = try Tuspy.run(
            server,
            """
            import requests, socket, time
            writer = socket.create_connection(("127.0.0.1", \(server.port)), timeout=5)
            writer.sendall(b"PATCH \(location) HTTP/1.1\\r\\nHost: test\\r\\nTus-Resumable: 1.0.0\\r\\nUpload-Offset: 0\\r\\n"
                           b"Content-Type: application/offset+octet-stream\\r\\nContent-Length: 1000\\r\\n\\r\\n" + bytes(10))
            time.sleep(0.5)
            tus = {"Tus-Resumable": "1.0.0"}
            second = requests.patch("\(server.url(location))", data=bytes(10), headers=dict(tus, **{
                "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"}))
            deleted = requests.delete("\(server.url(location))", headers=tus)
            writer.sendall(bytes(990))
            answer = writer.recv(4096).decode("latin-1")
            writer.close()
            result(second=second.status_code, code=second.json()["error"]["code"], deleted=deleted.status_code,
                   first=answer.split(" ")[1])
            """)
        #expect(reply["second"] as? Int == 423)
        #expect(reply["code"] as? String == "upload_locked")
        #expect(reply["deleted"] as? Int == 423)
        #expect(reply["first"] as? String == "204", "the first PATCH goes on undisturbed")
        #expect(try Tus.head(server, location).headers["upload-offset"] == "1000")
    }
}
