import CFFmpeg
import MediaCore

/// Writes the samples a walk found into a new file with the reference's codec configuration: video timed
/// by picture order at the reference's frame rate, audio by its sample count, both starting together as
/// as the reference's start (encoder priming hidden by an edit list, a track that starts late).
struct RepairWriter {
    let reference: ReferenceProfile
    let window: ByteWindow
    let format: ContainerFormat

    /// What was written of one track.
    struct Written {
        var samples = 0
        var bytes: Int64 = 0
        /// The first and last instant covered, in seconds.
        var start = Double.infinity
        var end = -Double.infinity

        var seconds: Double { samples > 0 ? max(0, end - start) : 0 }
    }

    /// Writes `samples` to `path`; returns what was written per track, and the video samples dropped
    /// before the first keyframe (they cannot be decoded). `progress` hears of the fraction written.
    func write(_ samples: [FoundSample], to path: String, progress: (Double) throws -> Void) throws
        -> (video: Written, audio: Written, leadingDropped: Int)
    {
        let videoIndices = samples.indices.filter { samples[$0].track == .video }
        let timeline = RepairTimeline(
            pictures: videoIndices.compactMap { samples[$0].picture }, spacing: reference.video?.pictureOrderSpacing)
        let firstKeyframe = videoIndices.firstIndex { samples[$0].isKeyframe }
        let keptVideo = firstKeyframe.map { videoIndices.count - $0 } ?? 0
        let hasAudio = samples.contains { $0.track == .audio }

        let file = try OutputFile(path: path, muxer: format.muxerName)
        var streamOf: [FoundSample.Track: (index: Int, timeBase: AVRational)] = [:]
        if keptVideo > 0, let track = reference.video {
            streamOf[.video] = (file.context.pointee.nb_streams.asInt, track.timeBase)
            try addStream(to: file, from: track.streamIndex, timeBase: track.timeBase)
        }
        if hasAudio, let track = reference.audio {
            let timeBase = AVRational(num: 1, den: Int32(track.sampleRate))
            streamOf[.audio] = (file.context.pointee.nb_streams.asInt, timeBase)
            try addStream(to: file, from: track.streamIndex, timeBase: timeBase)
        }
        try file.writeHeader(options: format.isISOBaseMedia ? ["movflags": "+faststart"] : [:])

        var video = Written()
        var audio = Written()
        var pictureIndex = 0
        let packet = Packet()
        for (number, sample) in samples.enumerated() {
            if number % 256 == 0 { try progress(Double(number) / Double(max(1, samples.count))) }
            guard let (stream, timeBase) = streamOf[sample.track] else { continue }
            if sample.track == .video {
                defer { pictureIndex += 1 }
                guard let firstKeyframe, pictureIndex >= firstKeyframe, let track = reference.video else { continue }
                let pts = (timeline.pts[pictureIndex] + track.presentationOffset) * track.frameDuration
                let dts = (timeline.dts[pictureIndex] + track.presentationOffset) * track.frameDuration
                try write(
                    sample.offset, sample.size, pts: pts, dts: dts,
                    duration: track.frameDuration, key: sample.isKeyframe, stream: stream, from: timeBase, to: file,
                    packet)
                video.record(sample.size, from: Double(pts) * av_q2d(timeBase), seconds: track.frameSeconds)
            } else if case .audio(let start, let count) = sample.timing, let track = reference.audio {
                try writeAudio(
                    sample, start: start, samples: count, track, stream: stream, timeBase: timeBase, to: file, packet,
                    &audio)
            }
        }
        try file.finish()
        return (video, audio, firstKeyframe ?? videoIndices.count)
    }

    /// Writes an audio sample of `count` samples from `first` on the audio clock; a PCM run goes in packets
    /// of the reference's packet size.
    private func writeAudio(
        _ sample: FoundSample, start first: Int64, samples count: Int, _ track: ReferenceAudio, stream: Int,
        timeBase: AVRational, to file: OutputFile, _ packet: Packet, _ written: inout Written
    ) throws {
        var pieces = [(offset: sample.offset, size: sample.size, samples: count)]
        if case .pcm(let blockAlign, _, let packetSize) = track.coding {
            pieces = stride(from: 0, to: sample.size, by: packetSize).map { start in
                let size = min(packetSize, sample.size - start)
                return (sample.offset + Int64(start), size, size / blockAlign)
            }
        }
        var start = first + track.startSamples
        for piece in pieces {
            try write(
                piece.offset, piece.size, pts: start, dts: start, duration: Int64(piece.samples), key: true,
                stream: stream, from: timeBase, to: file, packet)
            written.record(
                piece.size, from: Double(start) / Double(track.sampleRate),
                seconds: Double(piece.samples) / Double(track.sampleRate))
            start += Int64(piece.samples)
        }
    }

    private func addStream(to file: OutputFile, from index: Int, timeBase: AVRational) throws {
        let source = reference.stream(index)
        let stream = try file.addStream(copying: source.pointee.codecpar, timeBase: timeBase)
        try StreamCopy.carryProperties(from: source, to: stream)
    }

    private func write(
        _ offset: Int64, _ size: Int, pts: Int64, dts: Int64, duration: Int64, key: Bool, stream: Int,
        from timeBase: AVRational, to file: OutputFile, _ packet: Packet
    ) throws {
        try packet.setData(try window.bytes(at: offset, count: size))
        packet.streamIndex = stream
        packet.pts = pts
        packet.dts = dts
        packet.duration = duration
        packet.isKeyframe = key
        packet.rescale(from: timeBase, to: file.stream(stream).pointee.time_base)
        try file.write(packet)
    }
}

extension RepairWriter.Written {
    fileprivate mutating func record(_ size: Int, from time: Double, seconds: Double) {
        samples += 1
        bytes += Int64(size)
        start = min(start, time)
        end = max(end, time + seconds)
    }
}

extension UInt32 {
    fileprivate var asInt: Int { Int(self) }
}
