import NIOHTTP1

/// Listing the objects under a key prefix (`ListObjectsV2`), for removing all of a job's objects with only
/// its id known, and for checking that nothing was left behind; and whether the bucket exists at all.
extension S3Client {
    /// Whether the bucket exists (`HEAD` of the bucket: 200, or 404). A store that creates buckets on a
    /// first PUT (SeaweedFS does for an admin) would otherwise take a typo in the name for a new bucket.
    public func bucketExists() async throws -> Bool {
        let response = try await send(
            Request(method: .HEAD, key: nil, operation: "HEAD bucket \(location.bucket)"), accepting: [404])
        return response.status != 404
    }

    /// The keys (relative to the location's prefix) of the objects whose keys start with `prefix`, every
    /// page of the listing, in the store's order (UTF-8 binary order on S3). A truncated page without a
    /// continuation token is followed from its last key (`start-after`).
    public func listObjects(prefix: String = "") async throws -> [String] {
        var keys: [String] = []
        var continuation: [(name: String, value: String)] = []
        while true {
            let response = try await send(
                Request(
                    method: .GET, key: nil,
                    query: [("list-type", "2"), ("prefix", location.prefix + prefix)] + continuation,
                    operation: "list objects under \(location.prefix + prefix)"))
            let listing = try? S3XML.parse(response.body)
            guard let listing, listing.name == "ListBucketResult" else {
                let what = listing.map { "a <\($0.name)> document" } ?? "\(response.body.count) bytes of no XML"
                throw S3Error(
                    code: "InvalidResponse", status: response.status,
                    message: "list objects: the answer is \(what), not a listing")
            }
            let page = listing.children("Contents")
            for object in page {
                guard let key = object.text(of: "Key"), key.hasPrefix(location.prefix) else { continue }
                keys.append(String(key.dropFirst(location.prefix.count)))
            }
            guard listing.text(of: "IsTruncated") == "true" else { return keys }
            if let token = listing.text(of: "NextContinuationToken"), !token.isEmpty {
                continuation = [("continuation-token", token)]
            } else if let last = page.last?.text(of: "Key") {
                continuation = [("start-after", last)]
            } else {
                throw S3Error(
                    code: "InvalidResponse", status: response.status,
                    message: "list objects: a truncated page with no continuation token and no key to go on from")
            }
        }
    }
}
