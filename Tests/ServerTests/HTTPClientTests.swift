import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import TestSupport
import Testing

@testable import MediadClient

/// mediad's own HTTP client (webhooks, `mediad submit`) against loopback peers.
///
/// These tests are async and share the test process's few cooperative threads with blocking tests, so one
/// can wait minutes between two steps on a loaded machine: timeouts that are not under test are long.
@Suite struct HTTPClientTests {
    @Test func returnsRedirectsWithoutFollowingThem() async throws {
        let receiver = try WebhookReceiver(statuses: [302])
        defer { receiver.stop() }
        let response = try await HTTPClient().send(
            .POST, try HTTPURL("\(receiver.url)/hook"), headers: [("Content-Type", "application/json")],
            body: .bytes(Array("{}".utf8)), timeout: .seconds(300))
        #expect(response.status == 302)
        #expect(response.body == Array("ok".utf8))
        #expect(receiver.received.count == 1)
        #expect(receiver.received.first?.body == Data("{}".utf8))
        #expect(receiver.received.first?.headers["host"] == "127.0.0.1:\(receiver.port)")
    }

    /// A server that answers from the head and closes its side before taking the body: its answer is the
    /// response, and the answer's body reaches the sink as any other's does. A request without a body meets
    /// the same path whenever a quick server's answer and close come before the request's end is written;
    /// the body then went nowhere, and an S3 listing under load came back as 200 with 0 bytes. The body
    /// here is larger than the loopback socket buffers take, so the client is still writing it.
    @Test func anAnswerBeforeTheWholeBodyReachesTheSink() async throws {
        let receiver = try WebhookReceiver(statuses: [200], readingBodies: false)
        defer { receiver.stop() }
        let streamed = Mutex<[UInt8]>([])
        let response = try await HTTPClient().send(
            .PUT, try HTTPURL("\(receiver.url)/object"), body: .bytes(Array(repeating: 7, count: 64 << 20)),
            timeout: .seconds(300), sink: { chunk in streamed.withLock { $0 += chunk.readableBytesView } })
        #expect(response.status == 200)
        #expect(streamed.withLock { $0 } == Array("ok".utf8))
        #expect(response.body.isEmpty)
        #expect(receiver.received.first?.target == "/object")
    }

    @Test func aSilentPeerTimesOut() async throws {
        // A listening socket nobody accepts from: the connection opens, no answer ever comes.
        let silent = try WebhookReceiver(statuses: [200], accepting: false)
        defer { silent.stop() }
        do {
            _ = try await HTTPClient().send(
                .POST, try HTTPURL(silent.url), body: .bytes(Array("{}".utf8)), timeout: .milliseconds(300))
            Issue.record("a silent peer answered")
        } catch let failure as HTTPClient.Failure {
            #expect(failure.message == "timed out after 0.3s")
        }
    }

    @Test func aClosedPortIsAConnectionFailure() async throws {
        let closed = try WebhookReceiver(statuses: [200])
        closed.stop()
        do {
            _ = try await HTTPClient().send(.GET, try HTTPURL(closed.url))
            Issue.record("a closed port answered")
        } catch let failure as HTTPClient.Failure {
            #expect(failure.message.hasPrefix("cannot connect to 127.0.0.1:\(closed.port)"))
        }
    }

    @Test func speaksTLSToAServerItsAuthoritiesVouchFor() async throws {
        let scratch = try Scratch("tls")
        let certificates = try TLSReceiver.certificates(for: ["DNS:localhost", "IP:127.0.0.1"], in: scratch)
        let receiver = try TLSReceiver(certificates, in: scratch)
        defer { receiver.stop() }
        let client = try HTTPClient(tls: ClientTLS(extraAuthorities: certificates.authority))
        // By address (the certificate is checked against it) and by name (sent as SNI, checked too).
        for base in [receiver.url, "https://localhost:\(receiver.port)"] {
            let response = try await client.send(
                .POST, try HTTPURL("\(base)/hook?n=1"), headers: [("Content-Type", "application/json")],
                body: .bytes(Array("{\"tls\":true}".utf8)), timeout: .seconds(300))
            #expect(response.status == 200)
            #expect(response.body == Array("ok-tls".utf8))
        }
        #expect(receiver.received.count == 2)
        #expect(receiver.received.first?.target == "/hook?n=1")
        #expect(receiver.received.first?.body == Data("{\"tls\":true}".utf8))
        #expect(receiver.received.last?.headers["host"] == "localhost:\(receiver.port)")
    }

    @Test func refusesCertificatesItCannotTrust() async throws {
        let scratch = try Scratch("tls-refused")
        let trusted = try TLSReceiver.certificates(for: ["IP:127.0.0.1"], in: scratch)
        let elsewhere = try TLSReceiver.certificates(for: ["DNS:elsewhere.invalid"], in: scratch)
        let unknown = try TLSReceiver(trusted, in: scratch)
        defer { unknown.stop() }
        let misnamed = try TLSReceiver(elsewhere, in: scratch)
        defer { misnamed.stop() }
        // An authority the client was not given; then a trusted authority's certificate for another name.
        for (client, url, reason) in [
            (try HTTPClient(), unknown.url, "not signed by a trusted authority"),
            (
                try HTTPClient(tls: ClientTLS(extraAuthorities: elsewhere.authority)), misnamed.url,
                "not valid for 127.0.0.1"
            ),
        ] {
            do {
                _ = try await client.send(.GET, try HTTPURL(url), timeout: .seconds(300))
                Issue.record("\(url) was trusted")
            } catch let failure as HTTPClient.Failure {
                #expect(
                    failure.message.hasPrefix("127.0.0.1:") && failure.message.contains(reason), "\(failure.message)")
            }
        }
        #expect(unknown.received.isEmpty && misnamed.received.isEmpty)
    }

    @Test func withoutSystemAuthoritiesOnlyTheCAFileIsTrustedAndRefusalsSaySo() async throws {
        let scratch = try Scratch("tls-no-system")
        let certificates = try TLSReceiver.certificates(for: ["IP:127.0.0.1"], in: scratch)
        let receiver = try TLSReceiver(certificates, in: scratch)
        defer { receiver.stop() }
        let withFile = try HTTPClient(
            tls: ClientTLS(extra: ClientTLS.certificates(in: certificates.authority), systemAuthorities: false))
        #expect(try await withFile.send(.GET, try HTTPURL(receiver.url), timeout: .seconds(300)).status == 200)
        do {
            _ = try await HTTPClient(tls: ClientTLS(extra: [], systemAuthorities: false)).send(
                .GET, try HTTPURL(receiver.url), timeout: .seconds(300))
            Issue.record("an unknown authority was trusted")
        } catch let failure as HTTPClient.Failure {
            #expect(failure.message.contains("install ca-certificates"), "\(failure.message)")
        }
    }

    @Test func aFileWithoutCertificatesIsRefusedAtOnce() throws {
        let scratch = try Scratch("tls-bad")
        let empty = try scratch.write("empty.pem", Array("not a certificate\n".utf8))
        #expect(throws: ClientTLS.SetupError.self) { try ClientTLS(extraAuthorities: empty) }
        #expect(throws: ClientTLS.SetupError.self) { try ClientTLS(extraAuthorities: scratch.file("missing.pem")) }
    }
}
