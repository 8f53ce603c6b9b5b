import MediadClient

/// Where a redirect's `Location` points, resolved against the URL that answered (RFC 9110 allows a
/// reference relative to it): absolute (any scheme but http and https is refused), scheme-relative
/// (`//host/path`), absolute-path (`/path`) or relative to the answering URL's directory.
package enum RedirectTarget {
    package static func resolve(_ location: String, against base: HTTPURL) throws -> HTTPURL {
        let scheme = location.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
        if location.dropFirst(scheme.count).hasPrefix(":"), scheme.first?.isLetter == true {
            return try HTTPURL(location)
        }
        if location.hasPrefix("//") { return try HTTPURL((base.isSecure ? "https:" : "http:") + location) }
        let target = location.prefix { $0 != "#" }
        if target.hasPrefix("/") { return try HTTPURL(origin(base) + target) }
        let path = base.target.prefix { $0 != "?" }
        let directory = path[...(path.lastIndex(of: "/") ?? path.startIndex)]
        return try HTTPURL(origin(base) + directory + target)
    }

    private static func origin(_ url: HTTPURL) -> String {
        "\(url.isSecure ? "https" : "http")://\(url.hostHeader)"
    }
}
