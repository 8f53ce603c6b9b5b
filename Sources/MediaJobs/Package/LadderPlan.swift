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
        var renditions = asked.filter { $0.height <= height }.map { Rendition(rung: $0, height: $0.height) }
        if renditions.isEmpty, let smallest = asked.last {
            renditions = [Rendition(rung: smallest, height: height / 2 * 2)]
            warnings.append(
                "every rendition asked is larger than the source's \(size) picture: the package has one rendition "
                    + "at the source's height with \(smallest.rawValue)'s bit rate")
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
        self.renditions = renditions
        self.warnings = warnings
    }
}
