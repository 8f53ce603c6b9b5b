import NIOHTTP1

/// One route: a method and a path pattern such as `/jobs/{id}/outputs/{name}`.
public struct Route: Sendable, CustomStringConvertible {
    public let method: HTTPMethod
    public let pattern: String
    package let segments: [Segment]

    package enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public init(_ method: HTTPMethod, _ pattern: String) {
        self.method = method
        self.pattern = pattern
        segments = pattern.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    /// The path parameters if `path` (already split into segments) matches this pattern.
    package func match(_ path: [Substring]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let literal): if literal != part { return nil }
            case .parameter(let name): parameters[name] = String(part)
            }
        }
        return parameters
    }

    public var description: String { "\(method.rawValue) \(pattern)" }
}
