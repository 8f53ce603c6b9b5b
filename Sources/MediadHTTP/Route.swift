import Foundation
import NIOHTTP1

/// One route: a method and a path pattern such as `/jobs/{id}/outputs/{name}`, with the values some
/// parameters take when not every value is one of the route's (`/jobs/{kind}`: the job kinds;
/// `/jobs/{id}`: job ids). A last parameter written `{name...}` takes the rest of the path, one segment or
/// more, joined with `/` (`/jobs/{id}/outputs/{name...}` serves `…/outputs/720p/init.mp4`).
public struct Route: Sendable, CustomStringConvertible {
    public let method: HTTPMethod
    public let pattern: String
    package let segments: [Segment]
    /// For some parameters, whether a value is one this route serves.
    public let values: [String: @Sendable (String) -> Bool]

    package enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        /// The rest of the path, at least one segment.
        case rest(String)
    }

    public init(_ method: HTTPMethod, _ pattern: String, values: [String: @Sendable (String) -> Bool] = [:]) {
        self.method = method
        self.pattern = pattern
        self.values = values
        segments = pattern.split(separator: "/").map { part in
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return .literal(String(part)) }
            let name = part.dropFirst().dropLast()
            return name.hasSuffix("...") ? .rest(String(name.dropLast(3))) : .parameter(String(name))
        }
    }

    /// The path parameters if `path` (already split into segments) matches this pattern.
    package func match(_ path: [Substring]) -> [String: String]? {
        let takesRest = if case .rest = segments.last { true } else { false }
        guard takesRest ? path.count >= segments.count : path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (position, segment) in segments.enumerated() {
            let part = path[position]
            switch segment {
            case .literal(let literal): if literal != part { return nil }
            case .parameter(let name): parameters[name] = String(part)
            case .rest(let name): parameters[name] = path[position...].joined(separator: "/")
            }
        }
        return parameters
    }

    /// Whether `parameters` are values this route serves (not only the shape of its pattern).
    package func serves(_ parameters: [String: String]) -> Bool {
        values.allSatisfy { name, takes in parameters[name].map(takes) ?? false }
    }

    /// The pattern as OpenAPI writes it, a rest parameter without its dots: `/jobs/{id}/outputs/{name}`.
    public var template: String { pattern.replacingOccurrences(of: "...}", with: "}") }

    public var description: String { "\(method.rawValue) \(template)" }
}
