import MediadClient
import MediadRuntime
import NIOCore
import Testing

/// `--egress-allow` entries (names, domains, addresses, CIDR ranges), the address an allowed URL may reach,
/// and where a redirect points.
@Suite struct EgressRuleTests {
    @Test func namesAndDomainsAllowHostsAsWritten() throws {
        let rules = try EgressRule.list("media.example.com, .cdn.example.net,10.0.0.0/8, ::1")
        #expect(rules.map(\.description) == ["media.example.com", ".cdn.example.net", "10.0.0.0/8", "::1"])
        let allowed = { (host: String) in rules.contains { $0.allows(host: host) } }
        #expect(allowed("media.example.com"))
        #expect(!allowed("evil-media.example.com"))
        #expect(!allowed("example.com"))
        #expect(allowed("cdn.example.net"))
        #expect(allowed("a.b.cdn.example.net"))
        #expect(!allowed("cdn.example.net.evil.org"))
        #expect(allowed("10.200.0.1"))
        #expect(!allowed("11.0.0.1"))
        #expect(allowed("::1"))
        #expect(!allowed("127.0.0.1"))
        #expect(try EgressRule.list(" , ").isEmpty)
        for bad in ["10.0.0.0/33", "::1/129", "*.example.com", "exa mple.com", "..com", "a/b", "10.0.0.1/x"] {
            #expect(throws: EgressRefusal.self, "\(bad)") { try EgressRule(bad) }
        }
    }

    @Test func rangesHoldAddressesBitForBit() throws {
        let range = try EgressRule("192.168.4.0/22")
        #expect(range.holds(try SocketAddress(ipAddress: "192.168.7.255", port: 80)))
        #expect(!range.holds(try SocketAddress(ipAddress: "192.168.8.0", port: 80)))
        #expect(range.holds(try SocketAddress(ipAddress: "::ffff:192.168.5.1", port: 80)))
        let v6 = try EgressRule("fd00::/8")
        #expect(v6.holds(try SocketAddress(ipAddress: "fd12:3456::1", port: 80)))
        #expect(!v6.holds(try SocketAddress(ipAddress: "fe80::1", port: 80)))
        #expect(!v6.holds(try SocketAddress(ipAddress: "10.0.0.1", port: 80)))
        #expect(try EgressRule("0.0.0.0/0").holds(try SocketAddress(ipAddress: "169.254.169.254", port: 80)))
    }

    @Test func internalAddressesNeedARangeWhateverNameLedThere() throws {
        var policy = EgressPolicy()
        policy.rules = try EgressRule.list("localhost")
        #expect(throws: EgressRefusal.self) { try policy.resolve(HTTPURL("http://localhost:9/")) }
        policy.rules = try EgressRule.list("localhost,127.0.0.0/8,::1")
        let address = try policy.resolve(HTTPURL("http://localhost:9/"))
        #expect(["127.0.0.1", "::1"].contains(address.ipAddress ?? ""))
        #expect(throws: EgressRefusal.self) { try policy.resolve(HTTPURL("http://example.com/")) }
    }

    @Test func redirectsResolveAgainstTheAnsweringURL() throws {
        let base = try HTTPURL("https://media.example.com:8443/a/b/talk.mp4?sig=1")
        let cases = [
            ("https://other.example.com/x", "https://other.example.com/x"),
            ("//cdn.example.com/y?z=1", "https://cdn.example.com/y?z=1"),
            ("/root.mp4", "https://media.example.com:8443/root.mp4"),
            ("next.mp4#frag", "https://media.example.com:8443/a/b/next.mp4"),
            ("../up.mp4", "https://media.example.com:8443/a/b/../up.mp4"),
        ]
        for (location, expected) in cases {
            #expect(try RedirectTarget.resolve(location, against: base).description == expected, "\(location)")
        }
        #expect(throws: HTTPURL.ParseError.self) { try RedirectTarget.resolve("ftp://x/", against: base) }
    }
}
