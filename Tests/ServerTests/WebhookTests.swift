import Foundation
import TestSupport
import Testing

/// Job-end callbacks: signed POSTs to a receiver on loopback, retries, refusals, resumption after a restart.
@Suite(.serialized) struct WebhookTests {
    static let secret = "whsec-test-0123456789"

    func server(_ extra: [String] = []) throws -> ServerProcess {
        try ServerProcess(
            ["--webhook-allow", "127.0.0.1,*.ci.internal", "--webhook-retry-base", "0.1"] + extra,
            environment: ["MEDIAD_WEBHOOK_SECRET": Self.secret])
    }

    /// Polls the job until `done` holds for its JSON (at most `seconds`).
    func job(_ server: ServerProcess, _ id: String, seconds: Double = 60, until done: ([String: Any]) -> Bool)
        throws -> [String: Any]
    {
        let deadline = Date().addingTimeInterval(seconds)
        var json: [String: Any] = [:]
        repeat {
            json = try Curl.run(server.url("/jobs/\(id)")).json
            if done(json) { return json }
            usleep(100_000)
        } while Date() < deadline
        return json
    }

    func attempts(_ json: [String: Any]) -> [[String: Any]] { json["notifications"] as? [[String: Any]] ?? [] }

    /// Checks `Mediad-Signature` with openssl's HMAC, independently of mediad's code.
    func signatureIsValid(_ request: WebhookReceiver.Received, scratch: Scratch) throws -> Bool {
        let header = try #require(request.headers["mediad-signature"])
        let fields = Dictionary(
            uniqueKeysWithValues: header.split(separator: ",").map {
                let pair = $0.split(separator: "=", maxSplits: 1)
                return (String(pair[0]), String(pair.count > 1 ? pair[1] : ""))
            })
        let timestamp = try #require(fields["t"].flatMap { Int($0) })
        #expect(abs(Double(timestamp) - Date().timeIntervalSince1970) < 600)
        let message = try scratch.write("signed-\(UUID().uuidString)", Array("\(timestamp).".utf8) + request.body)
        let output = try Command.run("openssl", ["dgst", "-sha256", "-hmac", Self.secret, "-r", message]).text
        let expected = String(output.prefix { $0 != " " })
        return expected.count == 64 && fields["v1"] == expected
    }

    @Test func retriesUntilTheReceiverAcceptsAndSignsEveryAttempt() throws {
        let scratch = try Scratch("webhook")
        let receiver = try WebhookReceiver(statuses: [500, 500, 204])
        defer { receiver.stop() }
        let server = try server()
        let callback = "\(receiver.url)/hooks/mediad?build=41"
        let created = try Curl.run(
            server.url("/jobs/remux?format=mkv&wait=60"),
            ["-T", try Fixtures.h264AacMP4(), "--url-query", "callback_url=\(callback)"])
        #expect(created.json["callback_url"] as? String == callback)
        let id = try #require(created.json["id"] as? String)
        let json = try job(server, id) { attempts($0).count >= 3 }
        let notifications = attempts(json)
        #expect(notifications.map { $0["status"] as? Int } == [500, 500, 204])
        #expect(notifications.map { $0["error"] is NSNull } == [false, false, true])
        #expect(notifications.allSatisfy { $0["at"] is String })

        let requests = receiver.received
        #expect(requests.count == 3)
        for request in requests {
            #expect(request.target == "/hooks/mediad?build=41")
            #expect(request.headers["content-type"] == "application/json")
            #expect(try signatureIsValid(request, scratch: scratch))
            let body = try JSONSerialization.jsonObject(with: request.body) as? [String: Any]
            #expect(body?["id"] as? String == id)
            #expect(body?["state"] as? String == "succeeded")
            #expect((body?["outputs"] as? [Any])?.count == 1)
            #expect(body?["notifications"] == nil)
        }
        // A tampered body does not verify.
        var forged = requests[0]
        forged.body = Data(
            String(decoding: forged.body, as: UTF8.self).replacingOccurrences(of: "succeeded", with: "failed").utf8)
        #expect(try !signatureIsValid(forged, scratch: scratch))
        // Delivered: no further attempts.
        usleep(500_000)
        #expect(receiver.received.count == 3)
    }

    @Test func deliversOverTLSOnlyToReceiversItCanVerify() throws {
        let scratch = try Scratch("webhook-tls")
        let certificates = try TLSReceiver.certificates(for: ["IP:127.0.0.1"], in: scratch)
        let receiver = try TLSReceiver(certificates, in: scratch)
        defer { receiver.stop() }
        let stranger = try TLSReceiver(try TLSReceiver.certificates(for: ["IP:127.0.0.1"], in: scratch), in: scratch)
        defer { stranger.stop() }
        let server = try server(["--webhook-ca-file", certificates.authority])
        let input = try Fixtures.h264AacMP4()
        let callback = "\(receiver.url)/hooks/tls?build=7"
        let created = try Curl.run(
            server.url("/jobs/demux?wait=60"), ["-T", input, "--url-query", "callback_url=\(callback)"])
        let id = try #require(created.json["id"] as? String)
        let delivered = attempts(try job(server, id) { !attempts($0).isEmpty })
        #expect(delivered.map { $0["status"] as? Int } == [200], "\(delivered)")
        let request = try #require(receiver.received.first)
        #expect(request.target == "/hooks/tls?build=7")
        #expect(try signatureIsValid(request, scratch: scratch))

        // A receiver whose authority the server was not given is never sent the job; each attempt says why.
        let refused = try Curl.run(
            server.url("/jobs/demux?wait=60"), ["-T", input, "--url-query", "callback_url=\(stranger.url)/hooks"])
        let refusedID = try #require(refused.json["id"] as? String)
        let failures = attempts(try job(server, refusedID) { attempts($0).count >= 2 })
        #expect(failures.count >= 2)
        #expect(
            failures.allSatisfy {
                $0["status"] is NSNull && ($0["error"] as? String ?? "").contains("not signed by a trusted authority")
            }, "\(failures)")
        #expect(stranger.received.isEmpty)
    }

    @Test func aBadCertificateAuthorityFileStopsTheServerFromStarting() throws {
        let scratch = try Scratch("webhook-ca")
        let file = try scratch.write("ca.pem", Array("-----BEGIN CERTIFICATE-----\nnot base64\n".utf8))
        let output = try Command.run(
            ServerProcess.binary,
            ["serve", "--port", "0", "--data-dir", scratch.file("data"), "--webhook-ca-file", file],
            allowFailure: true)
        #expect(output.status != 0)
        #expect(output.stderr.contains("--webhook-ca-file"), "\(output.stderr)")
    }

    @Test func failedJobsAreNotifiedAndUnreachableReceiversRecordErrors() throws {
        let scratch = try Scratch("webhook")
        let receiver = try WebhookReceiver(statuses: [200])
        defer { receiver.stop() }
        let server = try server()
        let cut = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.h264AacMP4())).prefix(40_000)
        let file = try scratch.write("cut.mp4", [UInt8](cut))
        let failed = try Curl.run(
            server.url("/jobs/remux?wait=60"), ["-T", file, "--url-query", "callback_url=\(receiver.url)/"])
        let id = try #require(failed.json["id"] as? String)
        let json = try job(server, id) { attempts($0).count >= 1 }
        #expect(attempts(json).first?["status"] as? Int == 200)
        let body = try JSONSerialization.jsonObject(with: try #require(receiver.received.first).body) as? [String: Any]
        #expect(body?["state"] as? String == "failed")
        #expect((body?["error"] as? [String: Any])?["code"] as? String == "truncated_input")

        // Nothing listens on the stopped receiver's port: connection errors, retried, status null.
        let closed = try WebhookReceiver(statuses: [200])
        closed.stop()
        let unreachable = try Curl.run(
            server.url("/jobs/demux"),
            ["-F", "file=@\(try Fixtures.h264AacMP4())", "-F", "callback_url=\(closed.url)/gone"])
        let other = try #require(unreachable.json["id"] as? String)
        let retried = attempts(try job(server, other) { attempts($0).count >= 2 })
        #expect(retried.count >= 2)
        #expect(retried.allSatisfy { $0["status"] is NSNull && ($0["error"] as? String)?.isEmpty == false })
    }

    @Test func refusesCallbacksTheServerMayNotMake() throws {
        let server = try server()
        let input = try Fixtures.h264AacMP4()
        for (url, words) in [
            ("http://10.0.0.1/hook", "not one this server may call"),
            ("http://metadata.internal/hook", "not one this server may call"),
            ("http://ci.internal/hook", "not one this server may call"),
            ("https://10.0.0.1/hook", "not one this server may call"),
            ("ftp://127.0.0.1/hook", "http://"),
            ("http://user@127.0.0.1/hook", "user information"),
            ("http://127.0.0.1:99999/hook", "port"),
        ] {
            let refused = try Curl.run(server.url("/jobs/demux"), ["-T", input, "--url-query", "callback_url=\(url)"])
            #expect(refused.status == 400, "\(url)")
            #expect(refused.errorCode == "invalid_option")
            #expect(refused.text.contains(words), "\(url): \(refused.text)")
        }
        let form = try Curl.run(
            server.url("/jobs/demux"), ["-F", "file=@\(input)", "-F", "callback_url=http://169.254.169.254/"])
        #expect(form.status == 400)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs").isEmpty)

        let plain = try ServerProcess()
        let off = try Curl.run(
            plain.url("/jobs/demux"), ["-T", input, "--url-query", "callback_url=http://127.0.0.1/"])
        #expect(off.status == 400)
        #expect(off.text.contains("--webhook-secret"))
        let noSecret = try Command.run(
            ServerProcess.binary,
            ["serve", "--port", "0", "--data-dir", plain.dataDirectory + "-2", "--webhook-allow", "127.0.0.1"],
            allowFailure: true)
        #expect(noSecret.status != 0)
        #expect(noSecret.stderr.contains("--webhook-secret"))
    }

    @Test func anAllowedNameThatResolvesToAnInternalAddressIsNotCalled() throws {
        let receiver = try WebhookReceiver(statuses: [200])
        defer { receiver.stop() }
        let byName = try ServerProcess(
            ["--webhook-allow", "localhost", "--webhook-retry-base", "0.1"],
            environment: ["MEDIAD_WEBHOOK_SECRET": Self.secret])
        let callback = "http://localhost:\(receiver.port)/hook"
        let created = try Curl.run(
            byName.url("/jobs/demux"), ["-T", try Fixtures.h264AacMP4(), "--url-query", "callback_url=\(callback)"])
        #expect(created.status == 202)
        let id = try #require(created.json["id"] as? String)
        let refused = attempts(try job(byName, id) { attempts($0).count >= 2 })
        #expect(refused.count >= 2)
        #expect(
            refused.allSatisfy {
                ($0["error"] as? String)?.contains("an internal address not on --webhook-allow") == true
            })
        #expect(receiver.received.isEmpty)

        let listed = try ServerProcess(
            ["--webhook-allow", "localhost,127.0.0.1,::1", "--webhook-retry-base", "0.1"],
            environment: ["MEDIAD_WEBHOOK_SECRET": Self.secret])
        let delivered = try Curl.run(
            listed.url("/jobs/demux"), ["-T", try Fixtures.h264AacMP4(), "--url-query", "callback_url=\(callback)"])
        let other = try #require(delivered.json["id"] as? String)
        let accepted = attempts(try job(listed, other) { attempts($0).last?["status"] as? Int == 200 })
        #expect(accepted.last?["status"] as? Int == 200)
        #expect(receiver.received.first?.headers["host"] == "localhost:\(receiver.port)")
    }

    @Test func pendingDeliveriesResumeAfterARestart() throws {
        let receiver = try WebhookReceiver(statuses: [503])
        defer { receiver.stop() }
        let server = try ServerProcess(
            ["--webhook-allow", "127.0.0.1", "--webhook-retry-base", "1"],
            environment: ["MEDIAD_WEBHOOK_SECRET": Self.secret])
        let created = try Curl.run(
            server.url("/jobs/demux?wait=60"),
            ["-T", try Fixtures.h264AacMP4(), "--url-query", "callback_url=\(receiver.url)/"])
        let id = try #require(created.json["id"] as? String)
        _ = try job(server, id) { attempts($0).count >= 1 }
        server.stop()
        let before = receiver.received.count
        receiver.answer(with: 200)
        try server.launch()
        let json = try job(server, id) { attempts($0).last?["status"] as? Int == 200 }
        #expect(attempts(json).last?["status"] as? Int == 200)
        #expect(attempts(json).count <= receiver.received.count)
        #expect(receiver.received.count > before)
    }
}
