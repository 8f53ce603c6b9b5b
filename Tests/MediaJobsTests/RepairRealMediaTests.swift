import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Recordings of other writers, kept in the repository (`Tests/Media/real`), cut at 90 % of their media
/// data and repaired with themselves as the reference: a phone's HEVC (Dolby Vision) MOV with metadata
/// tracks, Android and mediabunny files with edit lists, B-frames, H.264 High 4:4:4, a moov first.
@Suite struct RepairRealMediaTests {
    static let files = [
        "androidx_media/dolbyVision-hdr.MOV", "androidx_media/edit_list_positive_shift.mp4",
        "Vanilagy_mediabunny/edts.mp4", "androidx_media/iibbibb_editlist_videoonly.mp4",
        "androidx_media/long_edit_list_audioonly.mp4", "androidx_media/h265_bframes.mp4",
    ]

    @Test(arguments: files)
    func rebuildsEverySampleWrittenBeforeTheCut(_ name: String) throws {
        let scratch = try Scratch("repair-real")
        let original = RealMedia.bundledDirectory + "/" + name
        let (broken, cut) = try RepairRecordings.cut(original, at: 0.9, in: scratch, name: "broken")
        let output = scratch.file("fixed.mov")
        let result = try RepairJob(input: broken, reference: original, output: output, options: .init(format: .mov))
            .run(JobContext())
        #expect(result.method == "index")
        let kinds = try Oracle.streams(original).compactMap { $0["codec_type"] as? String }
        let streams = ["video", "audio"].filter(kinds.contains).map { $0 == "video" ? "v:0" : "a:0" }
        let counts = try RepairRecordings.expectFaithful(output, to: original, cut: cut, streams: streams)
        print("repair \(name) cut at 90 %: \(counts)")
    }
}
