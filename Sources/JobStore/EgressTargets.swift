/// The whole URLs a job reads inputs from and writes outputs to, query strings (presigned signatures)
/// included. Kept in the job's `egress.json` (mode 0600), never in `job.json`, so nothing that shows a
/// record — the API, events, webhooks, logs — can show them.
public struct EgressTargets: Codable, Sendable, Equatable {
    /// Input name (as in `inputs`) → URL to GET.
    public var inputs: [String: String]
    /// Output name → URL to PUT.
    public var outputs: [String: String]

    public init(inputs: [String: String] = [:], outputs: [String: String] = [:]) {
        self.inputs = inputs
        self.outputs = outputs
    }

    public var isEmpty: Bool { inputs.isEmpty && outputs.isEmpty }
}
