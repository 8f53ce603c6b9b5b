/// Every job kind mediad runs. The command line, the HTTP routes, the worker, upload screening and the
/// OpenAPI check iterate this list; a new kind is added here and in its own folder.
public enum JobCatalog {
    /// In the order help texts and error messages list them.
    public static let kinds: [JobKind] = [EncodeJob.kind, DecodeJob.kind, MuxJob.kind, DemuxJob.kind, RemuxJob.kind]

    /// The kinds' names, in catalog order.
    public static var names: [String] { kinds.map(\.rawValue) }
}
