import MediaCore

extension RepairJob: MediaJob {
    public static let name = "repair"

    /// The broken recording, and a healthy one made with the same device or settings. The broken file
    /// passes the sniffer by its first box (`ftyp`, `mdat`, `wide`, …); nothing more of it is checked
    /// before the job, since it is broken.
    public static let inputs = [
        JobInputPart(
            "file", accepting: [.mp4], policy: .streamCopy,
            summary: "a broken MP4/MOV recording (no index, or cut off mid-fragment)"),
        JobInputPart(
            "reference", accepting: [.mp4], policy: .streamCopy,
            summary: "a healthy MP4/MOV recorded with the same device or settings"),
    ]

    /// Walking the media data tries decodes of AAC at many positions: more work than a remux.
    public static let timeScale = 4.0

    /// The broken file is required; the reference alone is nothing to repair.
    public static func checkParts(_ parts: Set<String>, options: Options) throws {
        guard parts.contains("file") else {
            throw MediaError(.invalidOption, "repair needs the broken recording as the 'file' part")
        }
    }

    public static func primaryOutput(for options: Options) -> String {
        "output." + options.format.container.fileExtension
    }

    public static func run(
        _ options: Options, inputs: JobInputFiles, output: String, context: JobContext
    ) throws -> RepairResult {
        try RepairJob(input: inputs.path(of: "file"), reference: inputs["reference"], output: output, options: options)
            .run(context)
    }
}

extension RepairJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        .choice(
            "format", of: RepairJob.Format.self, default: .mp4,
            help: "The container to write (MP4 cannot hold PCM audio: use mov or mkv for it).")
    ]
}

extension JobKind {
    public static let repair = RepairJob.kind
}
