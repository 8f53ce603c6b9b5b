import MediaJobs

/// `GET /catalog`: every job kind with the upload parts it takes and its options — the same names, types,
/// defaults and allowed values the API parses — for clients that build forms (the web console) or check
/// a request before sending it. It needs no token, like the index that lists the kinds.
struct KindCatalog: Encodable {
    struct Kind: Encodable {
        let name: String
        let inputs: [Input]
        let options: [Option]
    }

    struct Input: Encodable {
        /// The multipart part name.
        let name: String
        let summary: String
    }

    struct Option: Encodable {
        let name: String
        let type: String
        /// Absent when absence means something of its own (no trim, automatic choice).
        let `default`: String?
        let allowed: [String]
        let help: String
    }

    let kinds: [Kind] = JobCatalog.kinds.map { kind in
        Kind(
            name: kind.rawValue,
            inputs: kind.inputs.map { Input(name: $0.name, summary: $0.summary) },
            options: kind.optionDescriptions.map {
                Option(
                    name: $0.name, type: $0.type.rawValue, default: $0.defaultValue, allowed: $0.allowed, help: $0.help)
            })
    }
}
