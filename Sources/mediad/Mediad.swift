import ArgumentParser

@main
struct Mediad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediad",
        abstract:
            "Encode, decode, mux, demux, remux, transcode, package (HLS, DASH), take thumbnails of, draw waveforms of, repair and probe media files with libav, as an HTTP service or from the command line.",
        discussion: """
            Every command reads local files and writes its outputs under a temporary name, renaming them \
            only when complete. On failure it prints `error: <code>: <message>` and exits with status 1; \
            the codes are stable (invalid_option, unsupported_format, unsupported_codec, empty_input, \
            truncated_input, invalid_input, missing_stream, missing_parameter_sets, partial_frame, \
            conflicting_options, empty_selection, reference_mismatch, reference_required, nothing_recovered, \
            io_error, cancelled, internal_error).
            """,
        version: MediadVersion.text,
        subcommands: [
            ServeCommand.self, WorkerCommand.self, ProbeWorkerCommand.self, ProbeCommand.self, RemuxCommand.self,
            DemuxCommand.self, PackageCommand.self,
            MuxCommand.self,
            EncodeCommand.self,
            DecodeCommand.self, TranscodeCommand.self, ThumbnailsCommand.self, WaveformCommand.self,
            RepairCommand.self, SubmitCommand.self,
        ]
    )
}
