import Foundation
import TestSupport
import Testing

/// tus uploads with tuspy, a real tus client, against a real server: an upload that becomes its job, one
/// cut off and taken up again after a restart, checksums, expiry, termination, two at once, and uploads
/// named as job inputs.
@Suite(.serialized) struct ResumableUploadTests {
    static func sha256(_ path: String) throws -> String {
        String(try Command.run("sha256sum", [path]).text.prefix(64))
    }

    /// The job at `path` (`/jobs/<id>`) once it ended.
    static func finishedJob(_ server: ServerProcess, _ path: String) throws -> [String: Any] {
        try Curl.run(server.url(path + "?wait=60")).json
    }

    static func inputHashes(_ job: [String: Any]) -> [String] {
        (job["inputs"] as? [[String: Any]] ?? []).compactMap { $0["sha256"] as? String }
    }

    @Test func aTuspyUploadBecomesItsJobWithTheFilesSHA256() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let metadata = Tuspy.metadata(["kind": "remux", "format": "mkv", "filename": "talk.mp4"])
        let reply = try Tuspy.run(
            server,
            """
            uploader = client.TusClient(ENDPOINT).uploader("\(input)", chunk_size=32768, metadata=\(metadata), upload_checksum=True)
            uploader.upload()
            result(url=uploader.url, job=uploader.request.response_headers.get("mediad-job"), offset=uploader.offset)
            """)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int)
        #expect(size > 3 * 32768, "the upload takes several PATCHes")
        #expect(reply["offset"] as? Int == size)
        let path = try #require(reply["job"] as? String)
        let job = try Self.finishedJob(server, path)
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(Self.inputHashes(job) == [try Self.sha256(input)])
        #expect(job["source_name"] as? String == "talk.mp4")
        let id = try #require(job["id"] as? String)
        let output = try Curl.run(server.url("/jobs/\(id)/output"))
        let scratch = try Scratch("tus-output")
        let mkv = try scratch.write("talk.mkv", Array(output.body))
        #expect(try Oracle.format(mkv)["format_name"] as? String == "matroska,webm")
        // The upload now names its job, for a client that asks again.
        let url = try #require(reply["url"] as? String)
        let head = try Tus.head(server, String(url.dropFirst(server.baseURL.count)))
        #expect(head.status == 200)
        #expect(head.headers["mediad-job"] == path)
        #expect(head.headers["upload-offset"] == String(size))
    }

    @Test func aCutUploadIsTakenUpAfterARestartFromTheStoredOffset() throws {
        let scratch = try Scratch("tus-restart")
        let server = try ServerProcess(dataDirectory: scratch.file("data"))
        let input = try Fixtures.h264AacMP4()
        let size = try Data(contentsOf: URL(fileURLWithPath: input)).count
        let created = try Tus.create(
            server, length: size, metadata: "kind \(Tus.base64("remux")),format \(Tus.base64("mkv"))")
        #expect(created.status == 201)
        let location = try #require(created.headers["location"])
        let half = size / 2
        // A PATCH that announces every byte, sends half of them and drops the connection.
        _ = try Python.run(
            """
            import socket, time
            s = socket.create_connection(("127.0.0.1", \(server.port)), timeout=5)
            s.sendall(b"PATCH \(location) HTTP/1.1\\r\\nHost: test\\r\\nTus-Resumable: 1.0.0\\r\\nUpload-Offset: 0\\r\\n"
                      b"Content-Type: application/offset+octet-stream\\r\\nContent-Length: \(size)\\r\\n\\r\\n")
            s.sendall(open("\(input)", "rb").read()[:\(half)])
            time.sleep(0.5)
            s.close()
            """)
        var offset = -1
        for _ in 0..<50 where offset != half {
            offset = Int(try Tus.head(server, location).headers["upload-offset"] ?? "") ?? -1
            if offset != half { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(offset == half, "the server keeps the bytes of a cut chunk")
        #expect(server.stop() == 0)
        try server.launch()
        let reply = try Tuspy.resume(server, location, file: input)
        #expect(reply["start"] as? Int == half, "tuspy asked the restarted server for its offset")
        let job = try Self.finishedJob(server, try #require(reply["job"] as? String))
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(Self.inputHashes(job) == [try Self.sha256(input)])
    }

    @Test func aChunkWithAWrongChecksumIsRefusedWith460AndDropped() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let reply = try Tuspy.run(
            server,
            """
            import base64, requests
            data = open("\(input)", "rb").read()
            half = len(data) // 2
            uploader = client.TusClient(ENDPOINT).uploader("\(input)", chunk_size=65536, upload_checksum=True)
            uploader.upload(stop_at=half)
            def patch(body, algorithm, digest):
                return requests.patch(uploader.url, data=body, headers={
                    "Tus-Resumable": "1.0.0", "Upload-Offset": str(half),
                    "Content-Type": "application/offset+octet-stream",
                    "Upload-Checksum": algorithm + " " + base64.b64encode(digest).decode()})
            rest = data[half:]
            wrong = patch(rest, "sha256", hashlib.sha256(rest + b"x").digest())
            after_wrong = requests.head(uploader.url, headers={"Tus-Resumable": "1.0.0"}).headers["Upload-Offset"]
            unknown = patch(rest, "crc32", b"1234")
            right = patch(rest, "md5", hashlib.md5(rest).digest())
            result(half=half, size=len(data), wrong=wrong.status_code, wrong_body=wrong.json(),
                   after_wrong=int(after_wrong), unknown=unknown.status_code, unknown_body=unknown.json(),
                   right=right.status_code, offset=int(right.headers["Upload-Offset"]))
            """)
        #expect(reply["wrong"] as? Int == 460)
        #expect(
            (reply["wrong_body"] as? [String: Any])?["error"].flatMap { ($0 as? [String: Any])?["code"] } as? String
                == "checksum_mismatch")
        #expect(reply["after_wrong"] as? Int == reply["half"] as? Int, "the refused chunk is dropped")
        #expect(reply["unknown"] as? Int == 400)
        #expect(
            (reply["unknown_body"] as? [String: Any])?["error"].flatMap { ($0 as? [String: Any])?["code"] } as? String
                == "unsupported_checksum_algorithm")
        #expect(reply["right"] as? Int == 204)
        #expect(reply["offset"] as? Int == reply["size"] as? Int)
    }

    /// An upload whose metadata names a kind is screened like any upload when its last byte arrives: a ZIP
    /// archive sent as a remux is refused on the final PATCH, and the upload and its bytes are gone.
    @Test func anUploadThatIsNotMediaIsRefusedWhenItsLastByteArrives() throws {
        let scratch = try Scratch("tus-screen")
        let server = try ServerProcess()
        let archive = try scratch.write(
            "notes.zip", Array("PK\u{3}\u{4}".utf8) + Array(repeating: UInt8(ascii: "z"), count: 4092))
        let metadata = "kind \(Tus.base64("remux")),filename \(Tus.base64("notes.mp4"))"
        let created = try Tus.create(server, length: 4096, metadata: metadata)
        #expect(created.status == 201)
        let location = try #require(created.headers["location"])
        let directory = server.dataDirectory + "/resumable/" + location.dropFirst("/uploads/".count)
        let refused = try Tus.patch(server, location, offset: 0, file: archive)
        #expect(refused.status == 415, "\(refused.text)")
        #expect(refused.errorCode == "unsupported_format")
        #expect(refused.headers["mediad-job"] == nil)
        #expect(try Tus.head(server, location).status == 404)
        #expect(!FileManager.default.fileExists(atPath: directory))
        #expect((try Curl.run(server.url("/jobs")).json["jobs"] as? [Any])?.isEmpty == true)
    }

    @Test func anUploadLeftAloneExpiresAndIsRemoved() throws {
        let server = try ServerProcess(["--upload-expiry", "2s"])
        let created = try Tus.create(server, length: 1000)
        let location = try #require(created.headers["location"])
        #expect(created.headers["upload-expires"] != nil)
        #expect(try Tus.head(server, location).status == 200)
        let directory = server.dataDirectory + "/resumable/" + location.dropFirst("/uploads/".count)
        #expect(FileManager.default.fileExists(atPath: directory))
        Thread.sleep(forTimeInterval: 2.5)
        #expect([404, 410].contains(try Tus.head(server, location).status))
        var gone = false
        for _ in 0..<50 where !gone {
            gone = !FileManager.default.fileExists(atPath: directory)
            if !gone { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(gone, "the sweeper removes an expired upload")
        #expect(try Tus.head(server, location).status == 404)
    }

    @Test func terminationDeletesTheUploadAndItsBytes() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let reply = try Tuspy.run(
            server,
            """
            uploader = client.TusClient(ENDPOINT).uploader("\(input)", chunk_size=65536)
            uploader.upload(stop_at=65536)
            result(url=uploader.url)
            """)
        let location = String(try #require(reply["url"] as? String).dropFirst(server.baseURL.count))
        let directory = server.dataDirectory + "/resumable/" + location.dropFirst("/uploads/".count)
        #expect(FileManager.default.fileExists(atPath: directory + "/data"))
        #expect(try Curl.run(server.url(location), ["-X", "DELETE"]).status == 412, "tus asks for Tus-Resumable")
        let deleted = try Curl.run(server.url(location), ["-X", "DELETE"] + Tus.version)
        #expect(deleted.status == 204)
        #expect(deleted.headers["tus-resumable"] == "1.0.0")
        #expect(try Tus.head(server, location).status == 404)
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func twoUploadsAtOnceBecomeTheirOwnJobs() throws {
        let server = try ServerProcess()
        let mp4 = try Fixtures.h264AacMP4()
        let wav = try Fixtures.wav()
        let reply = try Tuspy.run(
            server,
            """
            jobs = {}
            def send(name, path, metadata):
                uploader = client.TusClient(ENDPOINT).uploader(path, chunk_size=32768, metadata=metadata)
                uploader.upload()
                jobs[name] = uploader.request.response_headers.get("mediad-job")
            threads = [
                threading.Thread(target=send, args=("remux", "\(mp4)", \(Tuspy.metadata(["kind": "remux", "format": "mkv"])))),
                threading.Thread(target=send, args=("encode", "\(wav)", \(Tuspy.metadata(["kind": "encode"])))),
            ]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            result(**jobs)
            """)
        for (kind, input) in [("remux", mp4), ("encode", wav)] {
            let job = try Self.finishedJob(server, try #require(reply[kind] as? String, "\(reply)"))
            #expect(job["kind"] as? String == kind)
            #expect(job["state"] as? String == "succeeded", "\(job)")
            #expect(Self.inputHashes(job) == [try Self.sha256(input)])
        }
    }

    @Test func anUploadWithoutKindIsTheInputOfAJobThatNamesIt() throws {
        let server = try ServerProcess()
        let adts = try Fixtures.adts()
        let h264 = try Fixtures.h264AnnexB()
        let mp4 = try Fixtures.h264AacMP4()
        let reply = try Tuspy.run(
            server,
            """
            def send(path, stop_at=None):
                uploader = client.TusClient(ENDPOINT).uploader(path, chunk_size=65536, metadata={"filename": path.split("/")[-1]})
                uploader.upload(stop_at=stop_at)
                return uploader.url.split("/")[-1]
            result(mp4=send("\(mp4)"), audio=send("\(adts)"), video=send("\(h264)"), partial=send("\(mp4)", 65536))
            """)
        let mp4ID = try #require(reply["mp4"] as? String)
        let remux = try Curl.run(server.url("/jobs/remux?upload=\(mp4ID)&format=mkv&wait=60"), ["-X", "POST"])
        #expect(remux.json["state"] as? String == "succeeded", "\(remux.text)")
        #expect(Self.inputHashes(remux.json) == [try Self.sha256(mp4)])
        #expect(remux.json["source_name"] as? String == URL(fileURLWithPath: mp4).lastPathComponent)
        #expect(try Curl.run(server.url("/uploads/\(mp4ID)")).status == 404, "the job took the upload's bytes")
        #expect(try Curl.run(server.url("/jobs/remux?upload=\(mp4ID)"), ["-X", "POST"]).status == 404)
        let partial = try Curl.run(
            server.url("/jobs/remux?upload=\(reply["partial"] as? String ?? "")"), ["-X", "POST"])
        #expect(partial.status == 409)
        #expect(partial.errorCode == "upload_incomplete")
        let audio = try #require(reply["audio"] as? String)
        let video = try #require(reply["video"] as? String)
        let mux = try Curl.run(
            server.url("/jobs/mux?audio_upload=\(audio)&video_upload=\(video)&wait=60"), ["-X", "POST"])
        #expect(mux.json["state"] as? String == "succeeded", "\(mux.text)")
        #expect(Set(Self.inputHashes(mux.json)) == Set([try Self.sha256(adts), try Self.sha256(h264)]))
    }
}

/// One upload, two replicas of a shared store: half sent to one, the rest to the other, which takes it up
/// from the offset the first stored.
@Suite(.serialized) struct SharedStoreUploadTests {
    @Test func anUploadStartedOnOneReplicaIsFinishedOnAnother() throws {
        let scratch = try Scratch("tus-replicas")
        let data = scratch.file("data")
        let first = try SharedStoreTests.replica("a", data: data)
        let second = try SharedStoreTests.replica("b", data: data)
        let input = try Fixtures.h264AacMP4()
        let metadata = Tuspy.metadata(["kind": "remux", "format": "mkv"])
        let started = try Tuspy.run(
            first,
            """
            uploader = client.TusClient(ENDPOINT).uploader("\(input)", chunk_size=32768, metadata=\(metadata))
            uploader.upload(stop_at=65536)
            result(path=uploader.url.split("/", 3)[3])
            """)
        let path = try #require(started["path"] as? String)
        let finished = try Tuspy.resume(second, "/" + path, file: input)
        #expect(finished["start"] as? Int == 65536)
        let job = try ResumableUploadTests.finishedJob(first, try #require(finished["job"] as? String))
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(ResumableUploadTests.inputHashes(job) == [try ResumableUploadTests.sha256(input)])
    }
}
