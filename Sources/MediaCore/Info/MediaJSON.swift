import Foundation

/// The one JSON style mediad writes and reads, in files, in the API, between server and worker: keys as
/// each type's `CodingKeys` spell them (snake_case), sorted, slashes unescaped. `JobJSON` adds RFC 3339
/// times to it for job records.
///
/// There is no key strategy: a `convertFromSnakeCase` decoder cannot read a key a type spells in
/// snake_case itself, and one strategy-free style keeps every type readable by every decoder.
public enum MediaJSON {
    /// An encoder in mediad's style; `pretty` for files people read.
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value`, pretty-printed, as `info.json` and the command line's `--json` show it.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try encoder(pretty: true).encode(value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}
