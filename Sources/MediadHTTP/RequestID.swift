import Synchronization

/// The id that ties a response to its log line: the client's `X-Request-Id` when it is sane, else a
/// fresh one.
///
/// A client id is kept only if it is 1…128 characters of `A-Z a-z 0-9 . _ -`: anything else could break
/// a log line or blow up its size, so it is replaced rather than cleaned.
package enum RequestID {
    package static let header = "X-Request-Id"
    package static let maxLength = 128

    /// The id to use for a request that sent `presented` (nil when it sent none).
    package static func resolve(_ presented: String?) -> String {
        if let presented, isSane(presented) { return presented }
        return generate()
    }

    package static func isSane(_ text: String) -> Bool {
        let allowed: (UInt8) -> Bool = { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        return (1...maxLength).contains(text.utf8.count) && text.utf8.allSatisfy(allowed)
    }

    /// 16 characters of URL-safe base64 over 96 bits that look random and never repeat within a process.
    ///
    /// Not drawn from the system's generator per request: that is two `getrandom` calls each time. The
    /// bits are a counter mixed with a key drawn once (SplitMix64's finaliser, a bijection, so distinct
    /// counts give distinct ids); the key makes ids of different processes unrelated. An id ties a
    /// response to its log line; it is no secret.
    package static func generate() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        let high = mix(count ^ key.high)
        let low = UInt32(truncatingIfNeeded: mix(count &+ key.low))
        var bits = (UInt128(high) << 32) | UInt128(low)
        var characters: [UInt8] = []
        characters.reserveCapacity(16)
        for _ in 0..<16 {
            characters.append(alphabet[Int(bits & 63)])
            bits >>= 6
        }
        return String(decoding: characters, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let counter = Atomic<UInt64>(0)
    private static let key: (high: UInt64, low: UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    private static func mix(_ value: UInt64) -> UInt64 {
        var bits = value &+ 0x9E37_79B9_7F4A_7C15
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return bits ^ (bits >> 31)
    }
}
