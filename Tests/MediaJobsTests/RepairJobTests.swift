import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Recordings whose recorder died before writing the index, repaired with a reference made by the same
/// command, against the same recording finished normally (`RepairRecordings.expectFaithful`).
@Suite struct RepairJobTests {
    static let cuts = [0.3, 0.6, 0.95]

    private func repair(
        _ input: String, reference: String?, format: RepairJob.Format = .mp4, in scratch: Scratch, name: String
    ) throws -> (RepairResult, String) {
        let output = scratch.file("\(name).\(format.rawValue)")
        let result = try RepairJob(input: input, reference: reference, output: output, options: .init(format: format))
            .run(JobContext())
        return (result, output)
    }

    @Test(arguments: cuts)
    func rebuildsH264AndAACInMP4(_ fraction: Double) throws {
        let scratch = try Scratch("repair-h264")
        let original = try RepairRecordings.recording("h264.mp4", codecs: RepairRecordings.h264AAC, container: "mp4")
        let reference = try RepairRecordings.recording(
            "h264-reference.mp4", codecs: RepairRecordings.h264AAC, container: "mp4", seconds: 2)
        let (broken, cut) = try RepairRecordings.cut(original, at: fraction, in: scratch, name: "broken.mp4")
        let (result, output) = try repair(broken, reference: reference, in: scratch, name: "fixed")
        let counts = try RepairRecordings.expectFaithful(output, to: original, cut: cut)
        #expect(result.method == "index")
        #expect(result.tracks.map(\.kind) == ["video", "audio"])
        #expect(result.tracks.first?.samples == counts["v:0"]?.recovered)
        #expect(result.recoveredBytes + result.skippedBytes == result.mediaDataBytes)
        #expect(result.skippedBytes < 20_000, "only the sample the cut went through is left: \(result.skipped)")
        print("repair h264+aac mp4 cut \(fraction): \(counts)")
    }

    @Test(arguments: [0.4, 0.9])
    func rebuildsH265AndAACInMP4(_ fraction: Double) throws {
        let scratch = try Scratch("repair-hevc")
        let original = try RepairRecordings.recording("hevc.mp4", codecs: RepairRecordings.hevcAAC, container: "mp4")
        let reference = try RepairRecordings.recording(
            "hevc-reference.mp4", codecs: RepairRecordings.hevcAAC, container: "mp4", seconds: 2)
        let (broken, cut) = try RepairRecordings.cut(original, at: fraction, in: scratch, name: "broken.mp4")
        let (result, output) = try repair(broken, reference: reference, in: scratch, name: "fixed")
        let counts = try RepairRecordings.expectFaithful(output, to: original, cut: cut)
        #expect(result.tracks.map(\.codec) == ["hevc", "aac"])
        print("repair hevc+aac mp4 cut \(fraction): \(counts)")
    }

    @Test(arguments: cuts)
    func rebuildsH264AndPCMInMOV(_ fraction: Double) throws {
        let scratch = try Scratch("repair-pcm")
        let original = try RepairRecordings.recording("pcm.mov", codecs: RepairRecordings.h264PCM, container: "mov")
        let reference = try RepairRecordings.recording(
            "pcm-reference.mov", codecs: RepairRecordings.h264PCM, container: "mov", seconds: 2)
        let (broken, cut) = try RepairRecordings.cut(original, at: fraction, in: scratch, name: "broken.mov")
        let (result, output) = try repair(broken, reference: reference, format: .mov, in: scratch, name: "fixed")
        #expect(result.tracks.map(\.codec) == ["h264", "pcm_s16le"])
        // PCM packets are cut where the repair chooses; its samples are compared decoded instead.
        let counts = try RepairRecordings.expectFaithful(output, to: original, cut: cut, pcmAudio: true)
        print("repair h264+pcm mov cut \(fraction): \(counts)")
    }

    /// The recorders killed: codecs, container, and how many bytes are on disk when the kill comes.
    static let killed: [(name: String, codecs: [String], container: String, bytes: Int)] = [
        ("h264", RepairRecordings.h264AAC, "mp4", 300_000), ("hevc", RepairRecordings.hevcAAC, "mp4", 300_000),
        ("pcm", RepairRecordings.h264PCM, "mov", 1_000_000),
    ]

    /// A recording made by `ffmpeg -f mp4`/`-f mov` killed with SIGKILL, against the same command run to
    /// its end. The killed run is asked for an hour, so it cannot end before the kill, which comes once
    /// `bytes` are on disk (what the recorder wrote, not time, decides); its first bytes are those of a
    /// 30-second run but for the `mdat` size, which only a finished run fills in.
    @Test(arguments: killed.indices)
    func rebuildsARecordingWhoseRecorderWasKilled(_ index: Int) throws {
        let (name, codecs, container, bytes) = Self.killed[index]
        let scratch = try Scratch("repair-killed")
        let finished = try RepairRecordings.recording(
            "finished-\(name).\(container)", codecs: codecs, container: container, seconds: 30)
        let killed = scratch.file("killed.\(container)")
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        recorder.arguments =
            ["ffmpeg", "-v", "error", "-y"] + RepairRecordings.source + ["-t", "3600"] + codecs
            + ["-f", container, killed]
        recorder.standardInput = FileHandle.nullDevice
        try recorder.run()
        while recorder.isRunning,
            (try? FileManager.default.attributesOfItem(atPath: killed)[.size] as? Int) ?? 0 < bytes
        {
            usleep(10_000)
        }
        kill(recorder.processIdentifier, SIGKILL)
        recorder.waitUntilExit()
        #expect(recorder.terminationReason == .uncaughtSignal)
        let cut = try #require(try FileManager.default.attributesOfItem(atPath: killed)[.size] as? Int)
        #expect(try Command.run("ffprobe", ["-v", "error", killed], allowFailure: true).status != 0)
        let reference = try RepairRecordings.recording(
            "\(name)-reference.\(container)", codecs: codecs, container: container, seconds: 2)
        let format: RepairJob.Format = container == "mov" ? .mov : .mp4
        let (result, output) = try repair(killed, reference: reference, format: format, in: scratch, name: "fixed")
        let counts = try RepairRecordings.expectFaithful(output, to: finished, cut: cut, pcmAudio: name == "pcm")
        #expect(result.method == "index")
        print("repair killed ffmpeg \(name) (\(cut) bytes): \(counts)")
    }

    /// A fragmented MP4 cut mid-fragment keeps every complete fragment, with no reference.
    @Test func keepsTheCompleteFragments() throws {
        let scratch = try Scratch("repair-fragments")
        let original = try Fixtures.make(
            "fragmented.mp4",
            RepairRecordings.source + ["-t", "4"] + RepairRecordings.h264AAC + [
                "-g", "25", "-movflags", "+frag_keyframe+empty_moov+default_base_moof", "-f", "mp4",
            ])
        let boxes = try Oracle.topLevelBoxes(original)
        let fragments = boxes.filter { $0 == "moof" }.count
        #expect(fragments >= 4)
        // Cut in the middle of the third fragment's media data.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let top = RepairRecordings.boxes(bytes)
        let third = try #require(top.indices.filter { top[$0].type == "mdat" }.dropFirst(2).first)
        #expect(top[third - 1].type == "moof")
        let cut = top[third].offset + top[third].size / 2
        let broken = try scratch.write("broken.mp4", Array(bytes.prefix(cut)))
        let (result, output) = try repair(broken, reference: nil, in: scratch, name: "kept")
        #expect(result.method == "fragments")
        #expect(result.fragmentsKept == 2)
        #expect(result.fragmentsDropped == 1)
        #expect(result.recoveredBytes == Int64(top[third - 1].offset))
        let counts = try RepairRecordings.expectFaithful(output, to: original, cut: top[third - 1].offset)
        print("repair fragmented mp4 cut mid-fragment: \(counts)")
    }

    /// A whole file needs no repair: it is remuxed as it is, and the result says so.
    @Test func remuxesAWholeFile() throws {
        let scratch = try Scratch("repair-whole")
        let original = try RepairRecordings.recording("h264.mp4", codecs: RepairRecordings.h264AAC, container: "mp4")
        let (result, output) = try repair(original, reference: nil, in: scratch, name: "same")
        #expect(result.method == "intact")
        #expect(result.warnings.contains { $0.contains("whole") })
        try RepairRecordings.expectFaithful(output, to: original, cut: Int.max)
    }
}
