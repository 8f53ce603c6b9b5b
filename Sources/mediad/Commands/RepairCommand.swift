import ArgumentParser
import MediaJobs

struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Rebuild a recording whose app, camera or phone died before it wrote its index (moov).",
        discussion: """
            Give a healthy recording made with the same device or settings as --reference: its codec \
            configuration (H.264 or H.265 video, AAC or PCM audio) describes the broken file's samples, which \
            are found one by one in its media data (mdat), timed at the reference's frame rate and sample rate, \
            and written into a new file with audio and video in step. Bytes that no sample takes are skipped \
            and counted, never guessed into a sample; --json reports what was recovered and where bytes were \
            skipped. A fragmented MP4 cut off mid-fragment needs no reference: its complete fragments are kept. \
            A reference of another codec, or settings the pictures do not decode with, fails with \
            reference_mismatch.

            Examples:
              mediad repair broken.mp4 --reference good.mp4 -o fixed.mp4
              mediad repair broken.mov --reference good.mov -o fixed.mov --json
              mediad repair cut-fragmented.mp4 -o kept.mp4
            """)

    @Argument(help: "The broken recording.")
    var input: String

    @Option(help: "A healthy MP4/MOV recorded with the same device or settings.")
    var reference: String?

    @OptionGroup var destination: JobOutputArguments<RepairJob>

    func run() throws {
        var values = OptionValues()
        try destination.addFormat(to: &values)
        try JobRunner.run(
            RepairJob.self, options: values, inputs: ["file": input, "reference": reference], to: destination)
    }
}
