import Foundation
import JobStore
import MediaCore
import MediaJobs
import MediadClient
import MediadHTTP
import MediadRuntime
import NIOHTTP1

/// Where a submission asks the job's outputs to be PUT once it succeeded: `output_url` (the primary
/// output) and `output_urls` (a JSON object, output name → URL), as query parameters or form fields like
/// the options. Each URL is checked against the egress policy at once (400 `output_refused`,
/// `egress_disabled`), so a target that can never be written to is refused before a job exists.
struct OutputURLs {
    private var primary: (text: String, url: HTTPURL)?
    /// By output name.
    private var named: [String: (text: String, url: HTTPURL)] = [:]

    var isEmpty: Bool { primary == nil && named.isEmpty }

    /// Moves `output_url` and `output_urls` out of `values` (they are not the kind's options) and checks them.
    mutating func take(from values: inout [String: String], policy: EgressPolicy) throws {
        if let text = values.removeValue(forKey: "output_url") {
            guard primary == nil else { throw Self.twice("output_url") }
            primary = (text, try Self.check(text, "output_url", policy))
        }
        guard let json = values.removeValue(forKey: "output_urls") else { return }
        guard named.isEmpty else { throw Self.twice("output_urls") }
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let urls = object as? [String: String], !urls.isEmpty
        else {
            throw ServiceError(
                .badRequest, "invalid_option", "output_urls must be a JSON object of output names to URLs")
        }
        for (name, text) in urls {
            guard SourceName.clean(name) == name else {
                throw ServiceError(.badRequest, "invalid_option", "output_urls: '\(name)' is not an output file name")
            }
            named[name] = (text, try Self.check(text, "output_urls.\(name)", policy))
        }
    }

    /// The deliveries the record lists (the primary output first, then by name) and the whole URLs
    /// `egress.json` keeps; `primaryName` is the kind's primary output for the job's options.
    func deliveries(primaryName: String) throws -> (deliveries: [OutputDelivery], urls: [String: String]) {
        var all = named
        if let primary {
            guard all[primaryName] == nil else {
                throw ServiceError(
                    .badRequest, "invalid_option",
                    "output_url and output_urls both name the primary output \(primaryName)")
            }
            all[primaryName] = primary
        }
        let order = all.keys.sorted { ($0 == primaryName ? 0 : 1, $0) < ($1 == primaryName ? 0 : 1, $1) }
        return (order.map { OutputDelivery(name: $0, url: all[$0]!.url.redacted) }, all.mapValues(\.text))
    }

    private static func check(_ text: String, _ field: String, _ policy: EgressPolicy) throws -> HTTPURL {
        do {
            return try policy.check(text, field: field, code: .outputRefused)
        } catch let error as MediaError {
            throw ServiceError(error)
        }
    }

    private static func twice(_ field: String) -> ServiceError {
        ServiceError(.badRequest, "invalid_option", "\(field) is given both in the query and the form")
    }
}
