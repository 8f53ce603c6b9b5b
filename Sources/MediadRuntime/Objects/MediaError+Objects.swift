import MediaCore

/// The code of jobs whose media could not be stored in the bucket of `--objects`.
extension MediaError.Code {
    /// The object store failed, or refused, through every retry while the job's outputs went up (or, for
    /// a submission, its input).
    public static let storageUnavailable = MediaError.Code(rawValue: "storage_unavailable")
}
