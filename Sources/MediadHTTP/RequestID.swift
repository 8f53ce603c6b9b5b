/// The id that ties a response to its log line: the client's `X-Request-Id` when it is sane, else a
/// fresh random one.
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

    /// 16 characters of URL-safe base64 over 96 random bits.
    package static func generate() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt32
        var bits = (UInt128(high) << 32) | UInt128(low)
        var characters: [UInt8] = []
        for _ in 0..<16 {
            characters.append(alphabet[Int(bits & 63)])
            bits >>= 6
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
