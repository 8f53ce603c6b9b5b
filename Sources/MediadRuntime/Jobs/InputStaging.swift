/// Inputs of a run being staged from the bucket while its worker already reads them (`--objects` without
/// `--objects-stage-whole`): each GET streams into the input's file in `inputs/`, which the worker reads
/// as it grows (`ArrivingFiles`), and is checked against the recorded size and SHA-256 once it has ended.
/// `arrival` is settled then, with nil or the staging's error; the run takes its end only after that
/// (`JobService.settle`), so a job never succeeds on an input that then failed its check.
struct InputStaging: Sendable {
    /// The inputs the worker reads as they grow.
    let names: [String]
    let arrival: InputArrival
    /// The GETs, one input after another; cancelled when the run is stopped for another reason.
    let task: Task<Void, Never>
}
