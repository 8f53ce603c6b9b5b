import NIOHTTP1

/// A request's conditional header fields, evaluated in the order of RFC 9110 §13.2.2.
///
/// `If-Match` uses the strong comparison and fails with 412; `If-None-Match` the weak one and answers a
/// `GET` or `HEAD` with 304 (other methods 412). `If-Unmodified-Since` and `If-Modified-Since` are ignored,
/// as §13.1.3–4 require of a resource without a modification date (none here sends `Last-Modified`).
/// `If-Range` decides whether a `Range` is honoured: only an entity tag strongly equal to the current one
/// keeps it; any other validator (a date, a weak or different tag) sends the whole representation.
package struct Preconditions {
    package let ifMatch: EntityTagCondition?
    package let ifNoneMatch: EntityTagCondition?
    package let ifRange: String?

    package init(_ headers: HTTPHeaders) {
        ifMatch = EntityTagCondition(headers["if-match"])
        ifNoneMatch = EntityTagCondition(headers["if-none-match"])
        ifRange = headers.first(name: "if-range")
    }

    /// What to do with the request once its conditions are evaluated.
    package enum Outcome: Equatable {
        case proceed
        /// Answer 304 with the representation's validators and caching fields, no body.
        case notModified
    }

    /// Evaluates the conditions against the target's current representation: `current` is its entity tag
    /// (nil when it has none) and `exists` whether it has one at all (a job to be created does not).
    /// Throws 412 `precondition_failed` when a condition fails and the method may not go ahead.
    package func evaluate(_ method: HTTPMethod, current: EntityTag?, exists: Bool = true) throws -> Outcome {
        if let ifMatch {
            let holds =
                switch ifMatch {
                case .any: exists
                case .tags(let tags): current.map { current in tags.contains { $0.matchesStrongly(current) } } ?? false
                }
            guard holds else {
                throw ServiceError(
                    .preconditionFailed, "precondition_failed",
                    "If-Match does not match the current representation"
                        + (current.map { " (ETag \($0.headerValue))" } ?? " (it has no entity tag)"))
            }
        }
        if let ifNoneMatch {
            let matches =
                switch ifNoneMatch {
                case .any: exists
                case .tags(let tags): current.map { current in tags.contains { $0.matchesWeakly(current) } } ?? false
                }
            if matches {
                guard method == .GET || method == .HEAD else {
                    throw ServiceError(
                        .preconditionFailed, "precondition_failed", "If-None-Match matches the current representation")
                }
                return .notModified
            }
        }
        return .proceed
    }

    /// Whether a `Range` of the representation tagged `current` is to be honoured (RFC 9110 §13.1.5).
    package func rangeApplies(current: EntityTag) -> Bool {
        guard let ifRange else { return true }
        return EntityTag(parsing: Substring(ifRange)).map { $0.matchesStrongly(current) } ?? false
    }
}
