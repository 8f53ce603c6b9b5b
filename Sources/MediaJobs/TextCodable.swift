/// A value that JSON holds as the text users write for it (`"30000/1001"`, `"3a74e6"`): `description`
/// writes it and `init?(parsing:)` reads it back, so stored options read like the request that set them.
public protocol TextCodable: Codable, CustomStringConvertible {
    /// What the value is, for the decoding error of text it refuses: `frame rate`.
    static var textName: String { get }
    /// The value `text` stands for, or nil.
    init?(parsing text: String)
}

extension TextCodable {
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(parsing: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "bad \(Self.textName) \(text)"))
        }
        self = value
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
