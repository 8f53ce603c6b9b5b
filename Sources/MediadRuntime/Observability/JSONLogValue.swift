import Logging

/// A JSON value for a log line, encoded by hand so key order is fixed and no encoder is set up per line.
package enum JSONLogValue {
    case string(String)
    case number(String)
    case bool(Bool)
    case array([JSONLogValue])
    case object([(String, JSONLogValue)])

    /// Log metadata as a JSON object, keys sorted.
    package init(_ metadata: Logger.Metadata) {
        self = .object(metadata.sorted { $0.key < $1.key }.map { ($0.key, JSONLogValue($0.value)) })
    }

    /// Integers, finite floating-point numbers and booleans stay what they are; anything else is a string.
    package init(_ value: Logger.Metadata.Value) {
        switch value {
        case .string(let text): self = .string(text)
        case .stringConvertible(let item as Bool): self = .bool(item)
        case .stringConvertible(let item as any BinaryInteger): self = .number(item.description)
        case .stringConvertible(let item as Double) where item.isFinite: self = .number(item.description)
        case .stringConvertible(let item): self = .string(item.description)
        case .array(let items): self = .array(items.map(JSONLogValue.init))
        case .dictionary(let metadata): self.init(metadata)
        }
    }

    package var encoded: String {
        switch self {
        case .string(let text): Self.quote(text)
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .array(let items): "[" + items.map(\.encoded).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.map { Self.quote($0.0) + ":" + $0.1.encoded }.joined(separator: ",") + "}"
        }
    }

    private static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20 || control.value == 0x7F:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(control.value, radix: 16).count)
                    + String(control.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
