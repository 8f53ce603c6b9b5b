import ArgumentParser
import Foundation
import MediaCore
import MediaJobs

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Show what is inside a media file: container, duration, size and every track.",
        discussion: """
            Reads MP4/MOV/M4A/3GP, Matroska, MPEG-TS, FLV, ASF, ADTS AAC, H.264/H.265 Annex-B and WAV. \
            Rotation is in degrees clockwise, as a player applies it.

            With --loudness each audio track gets integrated loudness (LUFS), loudness range (LU), true \
            peak (dBTP) and sample peak (dBFS), measured by libavfilter's ebur128.

            Examples:
              mediad probe talk.mp4 --json
              mediad probe talk.mp4 --loudness
            """)

    @Argument(help: "The file to probe.")
    var file: String

    @Flag(help: "Print the full description as JSON (the same document as demux's info.json).")
    var json = false

    @Flag(
        help:
            "Measure each audio track's EBU R128 loudness (integrated, range, true_peak, sample_peak); decodes the audio."
    )
    var loudness = false

    func run() throws {
        let info = try JobRunner.run(showProgress: loudness) { try ProbeJob(input: file, loudness: loudness).run($0) }
        if json {
            print(String(decoding: try MediaJSON.encode(info), as: UTF8.self))
        } else {
            print(ProbeSummary(info).text)
        }
    }
}
