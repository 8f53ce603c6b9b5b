import MediaCore

/// The codes of jobs that end because their isolated worker process did, not because of their input.
extension MediaError.Code {
    /// The job ran past its wall-clock or CPU-time limit and its worker was killed.
    public static let timeout = MediaError.Code(rawValue: "timeout")
    /// The worker died of a signal nobody in mediad sent; the message names the signal.
    public static let workerCrashed = MediaError.Code(rawValue: "worker_crashed")
    /// A worker's report (a message line on its stdout) was over the size the server reads; the answer
    /// it carried was dropped.
    public static let resultTooLarge = MediaError.Code(rawValue: "result_too_large")
}
