import MediaCore

extension StoreError {
    /// A stable identifier such as `not_found`, each spelt here once. The codes a store failure shares
    /// with a job's (`io_error`, `insufficient_storage`, `quota_exceeded`) are `MediaError.Code`'s own.
    ///
    /// A code compares equal to its spelling (`error.code == "not_found"`), the way a client reads it.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The file system refused.
        public static let ioError = Code(rawValue: MediaError.Code.ioError.rawValue)
        /// The disk is full, or below the `DiskWatermark`.
        public static let insufficientStorage = Code(rawValue: MediaError.Code.insufficientStorage.rawValue)
        /// An API token would store more than `--quota` (the job service's storage accounting).
        public static let quotaExceeded = Code(rawValue: MediaError.Code.quotaExceeded.rawValue)
        /// No such job.
        public static let notFound = Code(rawValue: "not_found")
        /// A job with that id is already stored.
        public static let alreadyExists = Code(rawValue: "already_exists")
        /// Not the shape of a job id (`JobStore.isValidID`).
        public static let invalidID = Code(rawValue: "invalid_id")
        /// A file name the store cannot accept (`JobStore.isValidFileName`).
        public static let invalidFileName = Code(rawValue: "invalid_file_name")
        /// A stored file (`job.json`, a lease, an egress record) that is missing or does not decode.
        public static let corruptRecord = Code(rawValue: "corrupt_record")
        /// In a shared store, another replica took over the job this one was about to save.
        public static let leaseLost = Code(rawValue: "lease_lost")
        /// The database that holds the replicas' jobs (`--database`) cannot be used now.
        public static let storeUnavailable = Code(rawValue: "store_unavailable")
        /// Another server holds the data directory's `StoreLock`.
        public static let storeInUse = Code(rawValue: "store_in_use")
        /// Another request is writing to the tus upload.
        public static let uploadLocked = Code(rawValue: "upload_locked")
        /// An API token holds `--max-pending-uploads` unfinished tus uploads (the job service's accounting).
        public static let tooManyUploads = Code(rawValue: "too_many_uploads")
    }
}
