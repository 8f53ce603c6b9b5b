import MediadFoundation

/// Parses `application/x-www-form-urlencoded` query strings.
package enum QueryString {
    package static func parse(_ query: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = PercentEncoding.decode(String(parts[0]), plusIsSpace: true),
                let value = PercentEncoding.decode(parts.count > 1 ? String(parts[1]) : "", plusIsSpace: true)
            else { throw ServiceError.invalidRequest("the query string is not valid percent-encoding") }
            guard result[key] == nil else {
                throw ServiceError.invalidRequest("query parameter '\(key)' is given twice")
            }
            result[key] = value
        }
        return result
    }
}
