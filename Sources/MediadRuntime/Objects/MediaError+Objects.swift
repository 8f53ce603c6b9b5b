import MediaCore

/// The code of a job that ran to its end but whose outputs could not be stored in the bucket of `--objects`.
extension MediaError.Code {
    /// The object store failed, or refused, through every retry while the job's outputs went up.
    public static let storageUnavailable = MediaError.Code(rawValue: "storage_unavailable")
}
