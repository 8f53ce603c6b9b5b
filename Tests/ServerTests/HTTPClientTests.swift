import Foundation
import Server
import Testing

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
}
