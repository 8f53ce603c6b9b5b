import NIOHTTP1

/// One route: a method and a path pattern such as `/jobs/{id}/outputs/{name}`, with the values some
/// parameters take when not every value is one of the route's (`/jobs/{kind}`: the job kinds;
/// `/jobs/{id}`: job ids).
public struct Route: Sendable, CustomStringConvertible {
    public let method: HTTPMethod
    public let pattern: String
    package let segments: [Segment]
    /// For some parameters, whether a value is one this route serves.
    public let values: [String: @Sendable (String) -> Bool]

    package enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public init(_ method: HTTPMethod, _ pattern: String, values: [String: @Sendable (String) -> Bool] = [:]) {
        self.method = method
        self.pattern = pattern
        self.values = values
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

    /// Whether `parameters` are values this route serves (not only the shape of its pattern).
    package func serves(_ parameters: [String: String]) -> Bool {
        values.allSatisfy { name, takes in parameters[name].map(takes) ?? false }
    }

    public var description: String { "\(method.rawValue) \(pattern)" }
}
