import JobStore
import MediaCore
import MediaJobs
import MediadHTTP
import MediadRuntime

/// Where the inputs a submission receives also go with `--objects`: the bucket, as inputs of the job whose
/// id was chosen before the body is read, each put fed while its body arrives (`InputObjectPut`). The job
/// is queued only once they are complete; a submission that fails removes the job's objects.
struct InputDestination {
    let objects: JobObjects
    /// The id the job will have.
    let job: String
    let kind: JobKind

    /// The put of the file of part `name` (a multipart part, or the lone input of a raw body), stored under
    /// the part's stored name; nil for a part the kind does not take.
    func put(part name: String, path: String) -> InputObjectPut? {
        guard let part = kind.inputs.first(where: { $0.name == name }) else { return nil }
        return objects.streamingPut(job: job, input: part.storedName, path: path)
    }

    /// The error a request gets for a receive that failed: the store's failure is a 503
    /// `storage_unavailable`, anything else as it was.
    static func refusal(_ error: any Error) -> any Error {
        guard let error = error as? MediaError, error.code == .storageUnavailable else { return error }
        return ServiceError(error)
    }
}
