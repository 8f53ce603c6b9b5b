import Foundation

/// What an `Accept-Encoding` header says about gzip (RFC 9110 §12.5.3).
///
/// `gzip` (or its alias `x-gzip`) with a q-value above 0 accepts it; `gzip;q=0` refuses it even when `*`
/// would accept it; `*` with q above 0 accepts it when gzip is not named. Malformed q-values count as
/// refusals, so a confused client gets the identity body.
package enum AcceptEncoding {
    package static func acceptsGzip(_ headerValues: [String]) -> Bool {
        var gzip: Double?
        var wildcard: Double?
        for element in headerValues.flatMap({ $0.split(separator: ",") }) {
            let parameters = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = parameters.first?.lowercased(), !coding.isEmpty else { continue }
            let quality = qValue(parameters.dropFirst())
            switch coding {
            case "gzip", "x-gzip": gzip = max(gzip ?? 0, quality)
            case "*": wildcard = quality
            default: continue
            }
        }
        if let gzip { return gzip > 0 }
        return (wildcard ?? 0) > 0
    }

    /// The `q` parameter, 1 when absent, 0 when it is not a valid qvalue (0…1, at most 3 decimals).
    private static func qValue(_ parameters: ArraySlice<String>) -> Double {
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
            let text = pair[1]
            let valid =
                text.count <= 5 && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
                && text.filter({ $0 == "." }).count <= 1
            guard valid, let value = Double(text), (0...1).contains(value) else { return 0 }
            return value
        }
        return 1
    }
}
