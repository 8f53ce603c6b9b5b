import CFFmpeg
import MediaCore

/// What a ladder encodes: the source's first video track (not cover art) at the heights of the asked
/// renditions that fit in its upright picture, and every audio track.
///
/// A rendition taller than the source is skipped with a warning, since upscaling only spends bits. When
/// every one asked is taller, the package still gets one rendition: the smallest asked, at the source's
/// own height (rounded down to even) with that rendition's bit rate, so a small source asked for a ladder
/// still plays.
struct LadderPlan {
    /// One rendition to encode: its rate and profile from `rung`, its picture `height` pixels tall.
    struct Rendition {
        let rung: LadderRung
        let height: Int
    }

    let video: UnsafeMutablePointer<AVStream>
    let audio: [UnsafeMutablePointer<AVStream>]
    /// The video's size once turned upright, as the renditions are scaled from it.
    let sourceSize: (width: Int, height: Int)
    /// Largest first.
    let renditions: [Rendition]
    let warnings: [String]

    /// The input streams the ladder reads: its video track, then its audio tracks.
    var sourceIndexes: [Int] { ([video] + audio).map { Int($0.pointee.index) } }

    init(input: InputFile, renditions asked: [LadderRung]) throws {
        let visual = input.streams.filter {
            $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
                && $0.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }
        guard let video = visual.first else {
            throw MediaError(
                .invalidOption, "renditions asks for a video ladder, but the input has no video track to encode")
        }
        let parameters = video.pointee.codecpar.pointee
        // The size once turned upright, as the encoded renditions are.
        let turned = VideoRotation(stream: video, keep: false).clockwiseDegrees % 180 == 90
        let width = Int(turned ? parameters.height : parameters.width)
        let height = Int(turned ? parameters.width : parameters.height)
        guard width > 0, height > 0 else {
            throw MediaError(.invalidInput, "the input's video track \(video.pointee.index) states no picture size")
        }
        let size = "\(width)x\(height)"
        var warnings = asked.filter { $0.height > height }.map {
            "rendition \($0.rawValue) (\($0.width)x\($0.height)) is larger than the source's \(size) picture and was skipped"
        }
        let renditions = Self.renditions(asked, sourceHeight: height)
        if let only = renditions.first, only.height != only.rung.height {
            warnings.append(
                "every rendition asked is larger than the source's \(size) picture: the package has one rendition "
                    + "at the source's height with \(only.rung.rawValue)'s bit rate")
        }
        if visual.count > 1 { warnings.append("only the first of \(visual.count) video tracks is encoded") }
        for stream in input.streams where !visual.contains(stream) {
            let type = stream.pointee.codecpar.pointee.codec_type
            guard type != AVMEDIA_TYPE_AUDIO else { continue }
            let track = MediaInfo.Track(describing: stream)
            warnings.append("track \(stream.pointee.index) (\(track.kind), \(track.codec)) is not carried by a ladder")
        }
        self.video = video
        audio = input.streams.filter { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        sourceSize = (width, height)
        self.renditions = renditions
        self.warnings = warnings
    }

    /// The renditions of `asked` (largest first) a source `sourceHeight` tall (upright) gets: those that
    /// fit, or when none does the smallest at the source's height, rounded down to even.
    static func renditions(_ asked: [LadderRung], sourceHeight: Int) -> [Rendition] {
        let fitting = asked.filter { $0.height <= sourceHeight }.map { Rendition(rung: $0, height: $0.height) }
        guard fitting.isEmpty, let smallest = asked.last else { return fitting }
        return [Rendition(rung: smallest, height: sourceHeight / 2 * 2)]
    }

    /// What encoding the renditions needs (`LadderMemory`): each one's size as `scale=-2:<height>` gives it
    /// from the upright source.
    func memory(preset: TranscodeJob.Preset) -> LadderMemory {
        Self.memory(renditions, source: sourceSize, preset: preset)
    }

    static func memory(_ renditions: [Rendition], source: (width: Int, height: Int), preset: TranscodeJob.Preset)
        -> LadderMemory
    {
        LadderMemory(
            source: source,
            renditions: renditions.map {
                let size = ScaledSize(width: nil, height: $0.height, source: source)
                return (size.width, size.height)
            }, preset: preset)
    }
}
