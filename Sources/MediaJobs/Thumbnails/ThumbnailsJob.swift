import CFFmpeg
import Foundation
import MediaCore

/// Video → still pictures at chosen points (`thumb_0001.jpg`, …), optionally tiled into a sprite sheet
/// with WebVTT cues for seek previews.
///
/// Each point is reached by seeking to the keyframe before it (`FrameSeeker`), so a picture every ten
/// seconds of an hour decodes a few frames per point, not the hour. The chosen frame goes through a
/// libavfilter graph: the display matrix's rotation (`transpose`, `hflip,vflip`), `thumbnail` in scene
/// mode, `scale`, and the encoder's pixel format.
public struct ThumbnailsJob: Sendable {
    /// The containers mediad reads that carry video, and raw H.264/H.265.
    public static let acceptedInputs: [InputContainer] = [.mp4, .matroska, .mpegts, .flv, .asf, .h264, .hevc]
    /// The most frames scene mode weighs for one picture, and the longest stretch after a point it looks at.
    static let sceneFrames = 100
    static let sceneSeconds = 2.0

    var input: String
    /// Directory the files are written to; created if missing.
    var outputDirectory: String
    var options: Options

    func run(_ context: JobContext) throws -> ThumbnailsResult {
        try options.validate()
        let file = try Self.openInput(input)
        guard
            let stream = file.streams.first(where: {
                $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
                    && $0.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
            })
        else { throw MediaError(.missingStream, "the \(file.container.displayName) input has no video track") }
        for other in file.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        let duration = Self.duration(of: stream, in: file)
        let schedule = try ThumbnailSchedule(options, duration: duration)
        guard !schedule.points.isEmpty else {
            throw MediaError(
                .emptySelection,
                "every point asked for is at or past the end of the \(String(format: "%.3f", duration ?? 0)) s video")
        }
        try OutputDirectory.create(outputDirectory)
        let seeker = try FrameSeeker(file: file, stream: stream)
        let pictures = ThumbnailPictures(options: options, rotation: MediaInfo.Track.rotation(stream) ?? 0)
        var sheet: SpriteSheet? = nil
        var thumbnails: [ThumbnailsResult.Thumbnail] = []
        var outputs: [String] = []
        var lastShown: Int64? = nil
        var merged = 0
        let timeBase = stream.pointee.time_base
        for (number, point) in schedule.points.enumerated() {
            try context.checkpoint()
            context.reportProgress(Double(number) / Double(schedule.points.count) * 0.95)
            let target =
                seeker.origin
                + av_rescale_q(Int64((point * 1_000_000).rounded()), AVRational(num: 1, den: 1_000_000), timeBase)
            // The last picture's frame is shown at or after this point: in exact mode it is this point's frame
            // too (no frame is shown between the last point and it), in scene mode it was chosen from frames
            // reaching past this point. Points closer together than frames share it, without decoding again.
            if let lastShown, lastShown >= target {
                merged += 1
                continue
            }
            try seeker.approach(target, lastFrame: lastShown)
            let window = sceneWindow(after: point, next: schedule.points.dropFirst(number + 1).first, stream: stream)
            guard let chosen = try pictures.picture(from: seeker, at: target, window: window) else {
                throw MediaError(.invalidInput, "no frame could be decoded at or before \(point) s")
            }
            // The track ended before this point as well as the last one: its last frame is pictured already.
            if chosen.shownAt == lastShown {
                merged += 1
                continue
            }
            lastShown = chosen.shownAt
            let name = Self.pictureName(thumbnails.count + 1, options.format)
            let path = outputDirectory + "/" + name
            try pictures.encoder(for: chosen.picture).write(chosen.picture, to: path)
            if options.sprite {
                let tiles =
                    try sheet ?? SpriteSheet(count: schedule.points.count, tile: chosen.picture, format: options.format)
                sheet = tiles
                try tiles.add(chosen.picture)
            }
            outputs.append(path)
            thumbnails.append(
                .init(
                    file: name, time: point,
                    frameTime: Double(chosen.shownAt - seeker.origin) * av_q2d(timeBase)))
        }
        let sprite = try sheet.map { try writeSprite($0, points: thumbnails.map(\.time), duration: duration) }
        outputs += sprite.map { [outputDirectory + "/" + $0.file, outputDirectory + "/" + $0.cues] } ?? []
        context.reportProgress(1)
        var warnings: [String] = []
        if !schedule.pastTheEnd.isEmpty {
            warnings.append(
                "no picture at \(schedule.pastTheEnd.map { String($0) }.joined(separator: ", ")) s: at or past the end of the "
                    + "\(String(format: "%.3f", duration ?? 0)) s video")
        }
        if merged > 0 {
            warnings.append(
                "\(merged) of the \(schedule.points.count) points fell on the frame of the point before (points closer "
                    + "together than the video's frames): \(thumbnails.count) pictures, one per frame, each listed at "
                    + "the first of its points")
        }
        let size = pictures.size ?? (0, 0)
        return ThumbnailsResult(
            outputs: outputs, warnings: warnings, thumbnails: thumbnails, width: size.width, height: size.height,
            format: options.format.rawValue, sprite: sprite, seeks: seeker.seeks, framesDecoded: seeker.framesDecoded)
    }

    /// Encodes the sheet as `sprite.<ext>` and writes `sprite.vtt`, whose cues run from 0 to the duration.
    private func writeSprite(_ sheet: SpriteSheet, points: [Double], duration: Double?) throws
        -> ThumbnailsResult.Sprite
    {
        let sheetName = "sprite." + options.format.fileExtension
        try sheet.write(to: outputDirectory + "/" + sheetName)
        let cues = SpriteCues(
            points: points, duration: duration ?? points.last ?? 0, sheetName: sheetName, columns: sheet.columns,
            tileWidth: sheet.tileWidth, tileHeight: sheet.tileHeight)
        try AtomicFile.write(Data(cues.text.utf8), to: outputDirectory + "/sprite.vtt")
        return ThumbnailsResult.Sprite(
            file: sheetName, cues: "sprite.vtt", columns: sheet.usedColumns, rows: sheet.usedRows)
    }

    /// How many frames scene mode weighs after `point`: those up to the next point, at most two seconds'
    /// worth and at most 100; 1 in exact mode.
    private func sceneWindow(after point: Double, next: Double?, stream: UnsafeMutablePointer<AVStream>) -> Int {
        guard options.mode == .scene else { return 1 }
        let rate = av_q2d(stream.pointee.avg_frame_rate) > 0 ? av_q2d(stream.pointee.avg_frame_rate) : 25
        let seconds = min(Self.sceneSeconds, (next ?? .infinity) - point)
        return max(1, min(Self.sceneFrames, Int(seconds * rate)))
    }

    /// The video's duration in seconds: the track's, else the file's; nil when neither is stated.
    static func duration(of stream: UnsafeMutablePointer<AVStream>, in file: InputFile) -> Double? {
        let value = stream.pointee.duration
        if value != mediad_nopts_value(), value > 0 { return Double(value) * av_q2d(stream.pointee.time_base) }
        return file.duration
    }
}
