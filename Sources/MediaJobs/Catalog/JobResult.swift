/// What every job returns: the files it wrote and anything the user should know about them.
public protocol JobResult: Codable, Sendable, Equatable {
    /// The files written: paths from a job's own `run`, file names in a `JobResultValue`. The primary
    /// output is the kind's `primaryOutput(for:)`, not necessarily the first.
    var outputs: [String] { get set }
    /// Things that were not errors but changed or dropped something (e.g. rotation MKV cannot store).
    var warnings: [String] { get }
}

extension JobResult {
    func isEqual(to other: any JobResult) -> Bool { (other as? Self) == self }
}
