import MediaCore

/// The codes of jobs whose media could not be stored in, or taken from, the bucket of `--objects`.
extension MediaError.Code {
    /// The object store failed, or refused, through every retry while the job's outputs went up (or an
    /// input was staged from it).
    public static let storageUnavailable = MediaError.Code(rawValue: "storage_unavailable")
    /// A job to run here found one of its inputs neither in its job directory nor in the bucket.
    public static let inputObjectMissing = MediaError.Code(rawValue: "input_object_missing")
    /// An input read back from the bucket is not the one the job recorded (another size or SHA-256).
    public static let inputObjectMismatch = MediaError.Code(rawValue: "input_object_mismatch")
}
