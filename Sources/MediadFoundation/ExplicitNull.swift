/// An optional property that a synthesized `Encodable` writes as `null` when it is nil, where it would
/// leave the key out: the API and the job records promise such keys are always present.
///
/// A type marks those properties `@ExplicitNull` and keeps the synthesized coding, instead of writing
/// `encode(to:)` by hand for each key. Decoding takes a missing key as nil, as `decodeIfPresent` does.
@propertyWrapper
public struct ExplicitNull<Value> {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// Nil, for a property declared without a value.
    public init() {
        wrappedValue = nil
    }
}

extension ExplicitNull: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

extension ExplicitNull: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// A missing key is nil, as for a plain optional: the synthesized `init(from:)` calls this overload.
    public func decode<Value: Decodable>(_ type: ExplicitNull<Value>.Type, forKey key: Key) throws
        -> ExplicitNull<Value>
    {
        ExplicitNull(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}

extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Sendable where Value: Sendable {}
