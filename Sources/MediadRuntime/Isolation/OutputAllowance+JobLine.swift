import MediaJobs

/// A job's `OutputAllowance` as the last fields of the line that sends a worker its job:
/// `<max output> <disk headroom> <quota remaining>`, each a byte count or `-` for no limit.
extension OutputAllowance {
    /// The three fields, space-separated.
    package var jobLineFields: String {
        [maxOutput, diskHeadroom, quotaRemaining].map { $0.map(String.init) ?? "-" }.joined(separator: " ")
    }

    /// The allowance the three fields state; nil when there are not three, or one is neither `-` nor a count.
    package init?<Field: StringProtocol>(jobLineFields fields: [Field]) {
        guard fields.count == 3 else { return nil }
        var limits: [Int64?] = []
        for field in fields {
            if field == "-" {
                limits.append(nil)
            } else if let bytes = Int64(field) {
                limits.append(bytes)
            } else {
                return nil
            }
        }
        self.init(maxOutput: limits[0], diskHeadroom: limits[1], quotaRemaining: limits[2])
    }
}
