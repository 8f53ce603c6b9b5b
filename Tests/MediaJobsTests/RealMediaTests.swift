import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Every file in ../shared/media/real: the ones marked ok must probe and remux losslessly to mp4 and mkv;
/// the ones broken on purpose must be salvaged with a warning or fail with a clear code, never crash.
@Suite struct RealMediaTests {
    static let okFiles = RealMedia.all().filter { $0.expect == "ok" }
    static let brokenFiles = RealMedia.all().filter { $0.expect == "broken" }
    static let editListFiles = RealMedia.all().filter { $0.expect == "edit-list" }

    @Test func manifestIsPresent() {
        #expect(
            Self.okFiles.count >= 15, "expected the real-world media beside the repository at \(RealMedia.directory)")
        #expect(Self.brokenFiles.count >= 4)
    }

    @Test(arguments: okFiles)
    func probesLikeFFprobe(file: RealMedia) throws {
        let info = try ProbeJob(input: file.path).run()
        let streams = try Oracle.streams(file.path)
        #expect(info.tracks.map(\.codec) == streams.map { $0["codec_name"] as? String ?? "" })
        #expect(info.size == Int64(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as! Int))
    }

    /// PCM has no MP4 sample entry in libav 5.1's mp4 muxer (mov and mkv take it): a clear refusal.
    static func mp4CannotHold(_ file: RealMedia) -> Bool { file.name.hasSuffix(".wav") }

    @Test(arguments: okFiles)
    func remuxesLosslesslyToMP4AndMKV(file: RealMedia) throws {
        let scratch = try Scratch("real")
        if Self.mp4CannotHold(file) {
            let error = #expect(throws: MediaError.self) {
                try RemuxJob(input: file.path, output: scratch.file("out.mp4"), options: try .init(format: .mp4))
                    .run(JobContext())
            }
            #expect(error?.code == .unsupportedCodec)
        }
        for format in [ContainerFormat.mp4, .mkv] where !(format == .mp4 && Self.mp4CannotHold(file)) {
            let output = scratch.file("out.\(format.rawValue)")
            let result = try RemuxJob(input: file.path, output: output, options: try .init(format: format))
                .run(JobContext())
            let problems = try Lossless.problems(
                input: file.path, output: output, primingMayShow: !format.signalsPriming)
            #expect(problems.isEmpty, "\(file.name) → \(format): \(problems) (warnings: \(result.warnings))")
        }
    }

    /// Files whose edit list hides decoded frames or samples: where the target cannot hide them too
    /// (Matroska; an ISO file for frames past the end), the job says so, and what the input shows is all there.
    @Test(arguments: editListFiles)
    func editListsKeepWhatIsShownAndNameWhatIsNot(file: RealMedia) throws {
        let scratch = try Scratch("real")
        for format in [ContainerFormat.mp4, .mkv] {
            let output = scratch.file("out.\(format.rawValue)")
            let result = try RemuxJob(input: file.path, output: output, options: try .init(format: format))
                .run(JobContext())
            let shown = result.warnings.contains { $0.contains("input's edit list hides") }
            #expect(shown || format.isISOBaseMedia, "\(file.name) → \(format): \(result.warnings)")
            let problems = try Lossless.problems(
                input: file.path, output: output, primingMayShow: !format.signalsPriming, hiddenMayShow: shown)
            #expect(problems.isEmpty, "\(file.name) → \(format): \(problems) (warnings: \(result.warnings))")
        }
    }

    /// A 3GP phone recording packs 50 AMR-NB frames into a sample; libav's decoder reads only the first
    /// frame of a packet, so every target gets one frame a packet and decodes to the full sample count.
    @Test func packedAMRFramesComeOutOneAPacket() throws {
        let file = try #require(RealMedia.all().first { $0.name.hasSuffix("MOV00006.3gp") })
        let frames = try Oracle.packets(file.path, stream: "a:0").reduce(0) {
            $0 + (Int($1["size"] as? String ?? "") ?? 0) / 32
        }
        let scratch = try Scratch("amr")
        for format in [ContainerFormat.mp4, .mkv] {
            let output = scratch.file("out.\(format.rawValue)")
            _ = try RemuxJob(input: file.path, output: output, options: try .init(format: format)).run(JobContext())
            #expect(try Oracle.packetCount(output, stream: "a:0") == frames, "\(format)")
            #expect(try Oracle.decodeAudio(output).count == frames * 160, "\(format)")
        }
    }

    /// A broken file is salvaged, with a warning that names the damage and every packet libav reads of
    /// each copied track (ffprobe's count), or, with nothing usable in it, fails with a clear code and
    /// leaves nothing behind. Decoding is not compared: concealing a damaged stream's errors is not
    /// deterministic across decoder threads.
    @Test(arguments: brokenFiles)
    func brokenFilesAreSalvagedOrFailWithAClearCode(file: RealMedia) throws {
        let scratch = try Scratch("real")
        let output = scratch.file("out.mkv")
        do {
            let result = try RemuxJob(input: file.path, output: output, options: try .init(format: .mkv))
                .run(JobContext())
            #expect(
                result.warnings.contains { $0.hasPrefix("truncated_input: ") || $0.hasPrefix("invalid_input: ") },
                "\(file.name): \(result.warnings)")
            let kinds = try Oracle.streams(file.path).map { $0["codec_type"] as? String ?? "" }
            // libav's raw ADTS reader hands a cut last frame over short; mediad's own leaves it out.
            let cutFrame = result.warnings.contains { $0.contains("that last frame could not be read") } ? 1 : 0
            for track in result.tracks where track.codec != "amr_nb" {
                let position = kinds.prefix(track.inputIndex).filter { $0 == track.kind }.count
                let spec = "\(track.kind.prefix(1)):\(position)"
                #expect(
                    track.packets + cutFrame == (try Oracle.packetCount(file.path, stream: spec)),
                    "\(file.name) \(spec)")
            }
        } catch let error as MediaError {
            let clear: Set<MediaError.Code> = [.truncatedInput, .invalidInput, .unsupportedFormat]
            #expect(clear.contains(error.code), "\(file.name): \(error)")
            #expect(!error.message.isEmpty)
            #expect(try scratch.listing().isEmpty)
        }
    }
}
