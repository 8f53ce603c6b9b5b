import CFFmpeg
import MediaCore

/// Walks a broken recording's media data (`mdat`) and attributes its bytes to samples of the reference's
/// tracks, in file order, as the recorder wrote them.
///
/// At each position the walk asks whether a video sample (`VideoSampleReader`) or an audio frame or run
/// (`AACFrameFinder`, PCM runs) starts there. When both could, the track whose next sample is due first
/// on the decoding clock wins: recorders, libav's muxer among them, interleave tracks by decoding time.
/// When neither does, the walk has lost its way (damage, a track the reference does not have, the cut
/// end of the file): it skips ahead to the next position where a video sample and what follows it check
/// out (or, without video, two AAC frames in a row), and counts the bytes skipped. Nothing is guessed
/// into a sample; every loop advances by at least one byte and reads only inside the data.
final class MediaDataWalker {
    /// The broken recording's bytes.
    let window: ByteWindow
    let referenceVideo: ReferenceVideo?
    let referenceAudio: ReferenceAudio?
    /// The video samples' reader, with the parameter sets accepted samples carried; nil without video.
    var video: VideoSampleReader?
    /// Picture order counting over the accepted samples, in decoding order.
    private var pictureOrder: (any PictureOrderParser)?
    /// Finds AAC frames; nil without AAC audio.
    let aac: AACFrameFinder?
    /// The samples found, in file order.
    private(set) var samples: [FoundSample] = []
    /// The bytes no sample took.
    private(set) var skipped = SkippedRanges()
    /// Bytes of media data walked, over every `mdat`.
    private(set) var walkedBytes: Int64 = 0
    /// Bytes of samples cut off by the end of an `mdat`, skipped.
    private(set) var cutOffBytes: Int64 = 0
    /// Video samples whose picture order could not be counted, skipped.
    private(set) var unorderedPictures = 0

    private var videoCount = 0
    /// Where the next audio sample starts on the audio clock, in samples.
    private var audioClock: Int64 = 0
    /// Set when bytes were skipped since the last audio sample: the audio clock is checked against the
    /// video's before the next one.
    private var skippedSinceAudio = false
    /// The last video check, which look-aheads and the step after them both ask for.
    private var lastVideoCheck: (offset: Int64, end: Int64, found: VideoSampleReader.Found)?

    init(window: ByteWindow, reference: ReferenceProfile) throws {
        self.window = window
        referenceVideo = reference.video
        referenceAudio = reference.audio
        if let track = reference.video {
            let units = track.configuration.units
            let unspecified = track.unspecifiedUnitTypes
            let syntax: any NALSyntax =
                track.isHEVC
                ? HEVCSampleSyntax(parameterSets: units, unspecifiedTypes: unspecified)
                : H264SampleSyntax(parameterSets: units, unspecifiedTypes: unspecified)
            video = VideoSampleReader(
                syntax: syntax, lengthSize: track.configuration.lengthSize, maxUnitSize: track.maxUnitSize,
                allowsLaterSlices: track.hasLaterSlices)
            var order: any PictureOrderParser = track.isHEVC ? HEVCPictureOrder() : H264PictureOrder()
            let sets: [UInt8] = units.flatMap { [0, 0, 0, 1] + $0 }
            _ = try sets.withUnsafeBufferPointer { try order.parse(accessUnit: $0) }
            pictureOrder = order
        }
        if let track = reference.audio, track.isAAC {
            let index = track.streamIndex
            aac = try AACFrameFinder(channels: track.channels) { try reference.decoder(for: index) }
        } else {
            aac = nil
        }
    }

    /// Walks the media data in `range`; `progress` hears of the bytes walked so far and may throw to stop.
    func walk(_ range: Range<Int64>, progress: (Int64) throws -> Void) throws {
        var position = range.lowerBound
        let end = range.upperBound
        var reported = position
        while position < end {
            if position - reported >= 1 << 20 {
                try progress(walkedBytes + position - range.lowerBound)
                reported = position
            }
            switch try step(at: position, end: end) {
            case .took(let next):
                position = next
            case .cutOff:
                skipped.add(position..<end)
                cutOffBytes += end - position
                position = end
            case .lost:
                let found = try resync(from: position + 1, end: end) {
                    try progress(walkedBytes + $0 - range.lowerBound)
                }
                skipped.add(position..<found)
                skippedSinceAudio = true
                position = found
            }
        }
        walkedBytes += Int64(range.count)
    }

    /// What one step of the walk did.
    private enum Step {
        /// Took a sample; the next one starts at the position given.
        case took(Int64)
        /// Came to the sample the recorder was writing when it died: the rest of the data is its start.
        case cutOff
        /// Found no sample.
        case lost
    }

    /// Takes the sample at `position`, if there is one.
    private func step(at position: Int64, end: Int64) throws -> Step {
        // A cut-off video sample wins over audio: random bytes decode as AAC now and then, and PCM takes
        // any bytes.
        if case .cutOff = try videoCheck(at: position, end: end) { return .cutOff }
        let audioFirst = audioIsDue
        for isAudio in [audioFirst, !audioFirst] {
            if isAudio, let found = try audioItem(at: position, end: end) {
                takeAudio(at: position, size: found.size, samples: found.samples)
                return .took(position + Int64(found.size))
            }
            if !isAudio, let sample = try videoSample(at: position, end: end) {
                try takeVideo(sample)
                return .took(position + Int64(sample.size))
            }
        }
        return .lost
    }

    /// Whether the audio track's next sample comes before the video's on the decoding clock.
    private var audioIsDue: Bool {
        guard let audioTrack = referenceAudio else { return false }
        guard let videoTrack = referenceVideo else { return true }
        let videoNext = videoTrack.startSeconds + Double(videoCount) * videoTrack.frameSeconds
        let audioNext = Double(audioClock + audioTrack.startSamples) / Double(audioTrack.sampleRate)
        if abs(audioNext - videoNext) < 1e-9 { return audioTrack.streamIndex < videoTrack.streamIndex }
        return audioNext < videoNext
    }

    /// What of the video track starts at `position`.
    func videoCheck(at position: Int64, end: Int64) throws -> VideoSampleReader.Found {
        guard let video else { return .none }
        if let last = lastVideoCheck, last.offset == position, last.end == end { return last.found }
        let found = try video.sample(at: position, end: end, in: window)
        lastVideoCheck = (position, end, found)
        return found
    }

    /// The video sample at `position`, if one starts there.
    func videoSample(at position: Int64, end: Int64) throws -> VideoSampleReader.Sample? {
        try videoCheck(at: position, end: end).sample
    }

    /// Accepts `sample` into the stream and counts its picture order; a picture whose order cannot be
    /// counted is skipped.
    private func takeVideo(_ sample: VideoSampleReader.Sample) throws {
        guard var reader = video, var order = pictureOrder else { return }
        reader.accept(sample)
        let headers = try reader.headers(of: sample, in: window)
        video = reader
        lastVideoCheck = nil
        let unit = try? headers.withUnsafeBufferPointer { try order.parse(accessUnit: $0) }
        pictureOrder = order
        guard let picture = unit?.picture else {
            unorderedPictures += 1
            skipped.add(sample.offset..<(sample.offset + Int64(sample.size)))
            return
        }
        samples.append(.video(offset: sample.offset, size: sample.size, picture: picture))
        videoCount += 1
    }

    /// Accepts the audio frame or run at `position`, on the audio clock.
    private func takeAudio(at position: Int64, size: Int, samples count: Int) {
        if skippedSinceAudio, let audioTrack = referenceAudio, let videoTrack = referenceVideo {
            // Audio lost in skipped bytes would pull every later frame early: start again at the video's time.
            let videoNow = videoTrack.startSeconds + Double(videoCount) * videoTrack.frameSeconds
            let due = Int64((videoNow * Double(audioTrack.sampleRate)).rounded()) - audioTrack.startSamples
            let frames = count > 0 ? (due - audioClock) / Int64(count) : 0
            if frames > 0 && Double(due - audioClock) > 0.5 * Double(audioTrack.sampleRate) {
                audioClock += frames * Int64(count)
            }
        }
        skippedSinceAudio = false
        samples.append(.audio(offset: position, size: size, start: audioClock, samples: count))
        audioClock += Int64(count)
    }

    /// The next position after `start` where the walk can go on: a video sample followed by something
    /// that checks out, or without video two AAC frames in a row; `end` when there is none.
    private func resync(from start: Int64, end: Int64, progress: (Int64) throws -> Void) throws -> Int64 {
        var position = start
        var reported = start
        while position < end {
            if position - reported >= 1 << 20 {
                try progress(position)
                reported = position
            }
            if try canResume(at: position, end: end) { return position }
            position += 1
        }
        return end
    }

    /// Whether the walk can go on at `position` after losing its way.
    private func canResume(at position: Int64, end: Int64) throws -> Bool {
        if let video {
            guard try mayStartUnit(at: position, end: end, video),
                let sample = try videoSample(at: position, end: end)
            else { return false }
            let next = position + Int64(sample.size)
            if next == end || referenceAudio.map({ !$0.isAAC }) == true { return true }
            if try videoSample(at: next, end: end) != nil { return true }
            return try aacFrame(at: next, end: end) != nil
        }
        guard let first = try aacFrame(at: position, end: end) else { return referenceAudio?.isAAC == false }
        let next = position + Int64(first.size)
        return try next == end || aacFrame(at: next, end: end) != nil
    }

    /// A cheap first look for the resync scan: a plausible unit size and a header byte of the codec.
    private func mayStartUnit(at position: Int64, end: Int64, _ reader: VideoSampleReader) throws -> Bool {
        let headerEnd = position + Int64(reader.lengthSize) + 2
        guard headerEnd <= end else { return false }
        return try window.withBytes(at: position, count: reader.lengthSize + 2) { bytes in
            let size = bytes.prefix(reader.lengthSize).reduce(0) { ($0 << 8) | Int($1) }
            let header = bytes[reader.lengthSize]
            guard size >= 1, size <= reader.maxUnitSize, Int64(size) <= end - position, header & 0x80 == 0 else {
                return false
            }
            if referenceVideo?.isHEVC == true {
                let second = bytes[reader.lengthSize + 1]
                return header & 1 == 0 && second & 0xF8 == 0 && second & 7 != 0
            }
            return [1, 5, 6, 7, 8, 9].contains(header & 0x1F)
        }
    }

    /// How many of the bytes in `ranges` are in runs of zeros at least `minimumRun` long: space reserved
    /// and never written, as opposed to the odd zero byte of other data.
    func zeroBytes(in ranges: [Range<Int64>], minimumRun: Int64 = 256) throws -> Int64 {
        var zeros: Int64 = 0
        for range in ranges {
            var run: Int64 = 0
            var position = range.lowerBound
            while position < range.upperBound {
                let count = Int(min(range.upperBound - position, 1 << 20))
                try window.withBytes(at: position, count: count) { bytes in
                    for byte in bytes {
                        if byte == 0 {
                            run += 1
                        } else {
                            if run >= minimumRun { zeros += run }
                            run = 0
                        }
                    }
                }
                position += Int64(count)
            }
            if run >= minimumRun { zeros += run }
        }
        return zeros
    }
}
