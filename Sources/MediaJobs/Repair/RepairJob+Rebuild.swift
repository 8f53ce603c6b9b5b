import CFFmpeg
import Foundation
import MediaCore

extension RepairJob {
    /// Walks every `mdat` of the broken file with the reference's codec configuration and writes what it
    /// found into `output`.
    func rebuild(
        _ layout: RecordingLayout, window: ByteWindow, reference: ReferenceProfile, _ context: JobContext
    ) throws -> RepairResult {
        let container = options.format.container
        for (kind, track) in [("video", reference.video?.streamIndex), ("audio", reference.audio?.streamIndex)] {
            guard let track, !container.carries(reference.stream(track).pointee.codecpar.pointee.codec_id) else {
                continue
            }
            let codec = String(cString: avcodec_get_name(reference.stream(track).pointee.codecpar.pointee.codec_id))
            throw MediaError(
                .unsupportedCodec,
                "\(container.displayName) output cannot carry the recording's \(codec) \(kind); ask for format=mov or mkv"
            )
        }
        let mediaData = layout.mediaData
        guard !mediaData.isEmpty else {
            throw MediaError(.nothingRecovered, "the file has no media data box ('mdat'): there is nothing to recover")
        }
        let total = Double(max(1, mediaData.reduce(0) { $0 + $1.count }))
        let walker = try MediaDataWalker(window: window, reference: reference)
        for range in mediaData {
            try walker.walk(range) { walked in
                try context.checkpoint()
                context.reportProgress(0.8 * Double(walked) / total)
            }
        }
        let samples = walker.samples
        let zeros = try walker.zeroBytes(in: walker.skipped.ranges)
        try checkFound(samples, walker: walker, reference: reference, zeros: zeros)
        if let video = reference.video, samples.contains(where: { $0.track == .video }) {
            try PictureCheck.check(samples, reference: reference, track: video, window: window)
        }
        let written = try RepairWriter(reference: reference, window: window, format: container).write(
            samples, to: output
        ) { fraction in
            try context.checkpoint()
            context.reportProgress(0.8 + 0.2 * fraction)
        }
        guard written.video.samples + written.audio.samples > 0 else {
            throw MediaError(
                .nothingRecovered, "the recording's pictures all depend on one before the first that was found")
        }
        var tracks: [RepairResult.Track] = []
        if let track = reference.video, written.video.samples > 0 {
            tracks.append(.init(kind: "video", codec: track.isHEVC ? "hevc" : "h264", written.video))
        }
        if let track = reference.audio, written.audio.samples > 0 {
            tracks.append(.init(kind: "audio", codec: track.codecName, written.audio))
        }
        let recovered = written.video.bytes + written.audio.bytes
        var skipped = walker.skipped
        return result(
            method: "index", tracks: tracks,
            warnings: warnings(
                walker, reference: reference, written: written, layout: layout, zeros: zeros, skipped: &skipped),
            walked: walker.walkedBytes, recovered: recovered, skipped: skipped)
    }

    /// Refuses a walk that found nothing, or that could not place most of the media data: the reference
    /// does not describe the recording. Zeros do not count against it (space a recorder reserved, or a
    /// file system allocated, and never wrote), nor does the sample the recorder was writing when it died.
    private func checkFound(
        _ samples: [FoundSample], walker: MediaDataWalker, reference: ReferenceProfile, zeros: Int64
    ) throws {
        let videoFound = samples.contains { $0.track == .video }
        let audioFound = samples.contains { $0.track == .audio }
        let written = walker.walkedBytes - zeros - walker.cutOffBytes
        guard written > 0 else {
            throw MediaError(
                .nothingRecovered,
                "the media data holds only zeros or the start of a sample cut off by the end of the file")
        }
        let unplaced = Double(walker.skipped.totalBytes - zeros - walker.cutOffBytes) / Double(written)
        let percent = Int((unplaced * 100).rounded())
        if unplaced > 0.5 {
            throw MediaError(
                .referenceMismatch,
                "\(percent) % of the recording's media data is no sample coded as the reference's "
                    + "\(describe(reference)): it was recorded with another codec or settings, or it is not media")
        }
        if let audio = reference.audio, !audioFound, videoFound, unplaced > 0.1 {
            throw MediaError(
                .referenceMismatch,
                "no \(audio.codecName) audio coded as the reference's (\(audio.sampleRate) Hz, \(audio.channels) "
                    + "channel(s)) is in the recording, and \(percent) % of its media data is no sample: its audio "
                    + "was recorded with other settings")
        }
        guard videoFound || audioFound else {
            throw MediaError(
                .nothingRecovered, "no sample coded as the reference's \(describe(reference)) is in the media data")
        }
    }

    /// The reference's tracks for messages: "H.264 320x240 and aac 48000 Hz, 1 channel(s)".
    private func describe(_ reference: ReferenceProfile) -> String {
        var tracks: [String] = []
        if let video = reference.video {
            let parameters = reference.stream(video.streamIndex).pointee.codecpar.pointee
            tracks.append("\(video.codecName) \(parameters.width)x\(parameters.height)")
        }
        if let audio = reference.audio {
            tracks.append("\(audio.codecName) \(audio.sampleRate) Hz, \(audio.channels) channel(s)")
        }
        return "(" + tracks.joined(separator: " and ") + ")"
    }

    /// What the user should know: bytes skipped and where, pictures dropped, tracks left out.
    private func warnings(
        _ walker: MediaDataWalker, reference: ReferenceProfile,
        written: (video: RepairWriter.Written, audio: RepairWriter.Written, leadingDropped: Int),
        layout: RecordingLayout, zeros: Int64, skipped: inout SkippedRanges
    ) -> [String] {
        var warnings: [String] = []
        if zeros > 0 {
            warnings.append("\(zeros) of the skipped bytes are zeros: space the recorder reserved and never wrote")
        }
        if let tail = skipped.ranges.last, tail.upperBound == layout.mediaData.last?.upperBound {
            warnings.append("dropped \(tail.count) byte(s) at the end of the media data: a sample cut off by the end")
        }
        let inside = skipped.ranges.filter { $0.upperBound != layout.mediaData.last?.upperBound }
        if !inside.isEmpty {
            let bytes = inside.reduce(0) { $0 + $1.count }
            warnings.append(
                "skipped \(bytes) byte(s) of media data in \(inside.count) place(s) that no sample of the "
                    + "reference's tracks starts in (damage, or a track the reference does not have)")
        }
        if let unreadable = layout.unreadableFrom {
            skipped.add(unreadable..<layout.fileSize)
            warnings.append(
                "ignored \(layout.fileSize - unreadable) byte(s) from byte \(unreadable) that are not a box")
        }
        if walker.unorderedPictures > 0 {
            warnings.append("dropped \(walker.unorderedPictures) picture(s) whose picture order could not be counted")
        }
        if written.leadingDropped > 0 {
            warnings.append(
                "dropped \(written.leadingDropped) picture(s) before the first keyframe, which cannot be decoded")
        }
        if reference.video != nil && written.video.samples == 0 { warnings.append("the recording holds no video") }
        if reference.audio != nil && written.audio.samples == 0 { warnings.append("the recording holds no audio") }
        if written.video.samples > 0, written.audio.samples > 0, abs(written.video.end - written.audio.end) > 1 {
            warnings.append(
                String(
                    format: "the video ends at %.2f s and the audio at %.2f s: check that the reference was "
                        + "recorded with the same settings", written.video.end, written.audio.end))
        }
        warnings += reference.ignoredTracks.map { "the reference's \($0) is not rebuilt; its samples are skipped" }
        return warnings
    }
}

extension RepairResult.Track {
    init(kind: String, codec: String, _ written: RepairWriter.Written) {
        self.init(kind: kind, codec: codec, samples: written.samples, seconds: written.seconds, bytes: written.bytes)
    }
}
