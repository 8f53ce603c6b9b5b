import NIOHTTP1

/// One route: a method and a path pattern such as `/jobs/{id}/outputs/{name}`, with the values some
/// parameters are limited to (`/jobs/{kind}`: the job kinds; `/jobs/{id}`: anything else).
public struct Route: Sendable, CustomStringConvertible {
    public let method: HTTPMethod
    public let pattern: String
    package let segments: [Segment]
    /// The values a parameter takes, for parameters not open to any value.
    public let values: [String: Values]

    /// The values of one parameter: only these, or any but these.
    public enum Values: Sendable {
        case only(Set<String>)
        case except(Set<String>)

        func contains(_ value: String) -> Bool {
            switch self {
            case .only(let set): set.contains(value)
            case .except(let set): !set.contains(value)
            }
        }
    }

    package enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public init(_ method: HTTPMethod, _ pattern: String, values: [String: Values] = [:]) {
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
        values.allSatisfy { name, allowed in parameters[name].map { allowed.contains($0) } ?? false }
    }

    public var description: String { "\(method.rawValue) \(pattern)" }
}
