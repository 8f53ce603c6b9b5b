import MediaCore
import NIOCore
import Testing

@testable import MediadRuntime
@testable import MediadClient

/// The callback URL, host pattern and address rules that decide whom the server may call.
@Suite struct CallbackAddressTests {
    func isInternal(_ ip: String) throws -> Bool {
        CallbackAddress.isInternal(try SocketAddress(ipAddress: ip, port: 80))
    }

    @Test func internalRangesAreKnown() throws {
        for ip in [
            "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
            "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fd00::1", "fe80::1", "ff02::1",
            "::ffff:127.0.0.1", "::ffff:10.0.0.1",
        ] {
            #expect(try isInternal(ip), "\(ip)")
        }
        for ip in ["8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2001:4860:4860::8888", "::ffff:1.1.1.1"] {
            #expect(try !isInternal(ip), "\(ip)")
        }
    }

    @Test func namesMayNotLeadToInternalAddressesUnlessListed() throws {
        let url = try HTTPURL("http://localhost:9/hook")
        #expect(throws: CallbackAddress.Refusal.self) {
            try CallbackAddress.resolve(url, allowed: [HostPattern("localhost")])
        }
        let allowed = try CallbackAddress.resolve(url, allowed: HostPattern.list("localhost, 127.0.0.1, ::1"))
        #expect(allowed.port == 9)
        #expect(["127.0.0.1", "::1"].contains(allowed.ipAddress ?? ""))
        #expect(
            try CallbackAddress.resolve(HTTPURL("http://127.0.0.1/"), allowed: [HostPattern("127.0.0.1")]).port == 80)
    }

    @Test func patternsAndURLsParseStrictly() throws {
        let patterns = try HostPattern.list(" hooks.example.com,*.CI.internal, [::1] ,")
        #expect(patterns.map(\.description) == ["hooks.example.com", "*.ci.internal", "::1"])
        #expect(patterns[1].matches("a.b.ci.internal"))
        #expect(!patterns[1].matches("ci.internal"))
        #expect(!patterns[1].matches("evilci.internal"))
        #expect(!patterns[0].matches("hooks.example.com.evil.net"))
        #expect(throws: HTTPURL.ParseError.self) { try HostPattern("hooks/evil") }

        let url = try HTTPURL("http://Hooks.Example.com:8080?a=1#frag")
        #expect(url.host == "hooks.example.com")
        #expect(url.port == 8080)
        #expect(url.target == "/?a=1")
        #expect(try HTTPURL("http://[::1]:81/x").hostHeader == "[::1]:81")
        #expect(!url.isSecure && !url.hostIsAddress)
        let secure = try HTTPURL("HTTPS://hooks.example.com/in")
        #expect(secure.isSecure && secure.port == 443 && secure.hostHeader == "hooks.example.com")
        #expect(secure.description == "https://hooks.example.com/in")
        #expect(try HTTPURL("https://127.0.0.1:8443").hostHeader == "127.0.0.1:8443")
        #expect(try HTTPURL("https://[::1]/").hostIsAddress)
        for bad in [
            "ftp://a.com/", "https:/a.com/", "http://a b/", "http://a.com@b.com/", "http://:80/", "http://a.com:0/",
            "http://::1/",
            "http://[zz]/", "mailto:x@y",
        ] {
            #expect(throws: HTTPURL.ParseError.self, "\(bad)") { try HTTPURL(bad) }
        }
    }

    /// A `callback_url` is at most 2048 characters, openapi.yaml's `maxLength`.
    @Test func callbackURLsPastTheirMaximumLengthAreRefused() throws {
        var settings = WebhookSettings()
        settings.secret = "secret"
        settings.allowedHosts = [try HostPattern("hooks.example.com")]
        let base = "https://hooks.example.com/"
        let longest = base + String(repeating: "a", count: WebhookSettings.maxURLLength - base.count)
        #expect(try settings.check(longest).host == "hooks.example.com")
        #expect(throws: MediaError.self) { try settings.check(longest + "a") }
    }
}
