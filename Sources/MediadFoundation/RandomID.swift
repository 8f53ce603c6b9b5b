import Foundation

/// Random names that no two processes pick alike: job and upload ids, and the hidden temporary files
/// that the store and the client write beside their final names.
package enum RandomID {
    /// 128 random bits from the system's generator as URL-safe base64 without padding: 22 characters of
    /// `A-Z a-z 0-9 _ -`, safe in a path and a query string unescaped.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<2).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        return Base64URL.encode(Data(bytes))
    }
}
