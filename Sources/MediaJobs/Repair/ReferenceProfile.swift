import CFFmpeg
import MediaCore

/// A healthy recording made with the same device or settings as a broken one, read for what a repair
/// needs: each track's codec configuration and timing, and what its samples and their layout look like.
///
/// The reference is opened like any input (its structure checked, only stream-copy decoders allowed) and
/// its first packets are read for statistics, at most `maxPackets` of them.
final class ReferenceProfile {
    static let maxPackets = 20_000

    let input: InputFile
    let video: ReferenceVideo?
    let audio: ReferenceAudio?
    /// Tracks the repair leaves out (timecode, metadata), for the warnings.
    let ignoredTracks: [String]

    init(path: String) throws {
        input = try InputFile(path: path, accepting: [.mp4], policy: .streamCopy)
        try input.findStreamInfo()
        var videoStreams: [UnsafeMutablePointer<AVStream>] = []
        var audioStreams: [UnsafeMutablePointer<AVStream>] = []
        var ignored: [String] = []
        for stream in input.streams {
            let parameters = stream.pointee.codecpar.pointee
            let name = String(cString: avcodec_get_name(parameters.codec_id))
            switch parameters.codec_type {
            case AVMEDIA_TYPE_VIDEO where stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0:
                guard [AV_CODEC_ID_H264, AV_CODEC_ID_HEVC].contains(parameters.codec_id) else {
                    throw MediaError(
                        .unsupportedCodec, "the reference's video is \(name); repair rebuilds H.264 and H.265 video")
                }
                videoStreams.append(stream)
            case AVMEDIA_TYPE_AUDIO:
                guard parameters.codec_id == AV_CODEC_ID_AAC || Self.isPCM(parameters.codec_id) else {
                    throw MediaError(
                        .unsupportedCodec, "the reference's audio is \(name); repair rebuilds AAC and PCM audio")
                }
                audioStreams.append(stream)
            default:
                let kind = av_get_media_type_string(parameters.codec_type).map { String(cString: $0) } ?? "data"
                let tag = withUnsafeBytes(of: parameters.codec_tag.littleEndian) { Array($0) }
                let names = [
                    parameters.codec_id == AV_CODEC_ID_NONE ? nil : name,
                    tag.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? "'\(String(decoding: tag, as: UTF8.self))'" : nil,
                ].compactMap { $0 }
                ignored.append(
                    "\(kind) track \(stream.pointee.index)"
                        + (names.isEmpty ? "" : " (\(names.joined(separator: ", ")))"))
            }
        }
        guard videoStreams.count <= 1, audioStreams.count <= 1 else {
            throw MediaError(
                .unsupportedCodec,
                "the reference has \(videoStreams.count) video and \(audioStreams.count) audio tracks; "
                    + "repair rebuilds one of each")
        }
        guard !videoStreams.isEmpty || !audioStreams.isEmpty else {
            throw MediaError(.missingStream, "the reference has no audio or video track")
        }
        let sampled = try Self.readPackets(
            input, video: videoStreams.first.map { Int($0.pointee.index) },
            audio: audioStreams.first.map { Int($0.pointee.index) })
        video = try videoStreams.first.map { try Self.describeVideo($0, sampled) }
        audio = try audioStreams.first.map { try Self.describeAudio($0, sampled) }
        ignoredTracks = ignored
    }

    static func isPCM(_ codec: AVCodecID) -> Bool {
        String(cString: avcodec_get_name(codec)).hasPrefix("pcm_") && av_get_bits_per_sample(codec) > 0
    }

    /// The first packets of the chosen tracks: where each lies, with its payload's facts.
    private struct Sampled {
        var layout: [ReferencePacket] = []
        var durations: [Int: [Int64]] = [:]
        var firstDTS: [Int: Int64] = [:]
        var firstPTS: [Int: Int64] = [:]
        /// The earliest presentation among the video samples kept.
        var earliestVideoPTS: Int64?
        var largestVideo = 0
        var videoSamples: [[UInt8]] = []
        var keptBytes = 0
        var audioLeadingBits: [UInt8] = []
        var silentAudioFrames = false
    }

    /// Keeps the first video samples, whole, for slice counting and picture order: enough for a few groups
    /// of pictures, within a budget of bytes so that a reference of 4K intra frames costs no more memory.
    private static let keptVideoSamples = 64
    private static let keptVideoBytes = 32 << 20

    private static func readPackets(_ input: InputFile, video: Int?, audio: Int?) throws -> Sampled {
        var sampled = Sampled()
        let packet = Packet()
        while sampled.layout.count < maxPackets, try input.read(into: packet) {
            let index = packet.streamIndex
            guard index == video || index == audio else { continue }
            let isVideo = index == video
            let position = packet.pointer.pointee.pos
            if position >= 0 {
                sampled.layout.append(ReferencePacket(isVideo: isVideo, position: position, size: packet.size))
            }
            if packet.duration > 0 { sampled.durations[index, default: []].append(packet.duration) }
            if sampled.firstDTS[index] == nil {
                sampled.firstDTS[index] = packet.dts
                sampled.firstPTS[index] = packet.pts
            }
            if isVideo {
                if sampled.videoSamples.count < keptVideoSamples, let pts = packet.pts {
                    sampled.earliestVideoPTS = min(sampled.earliestVideoPTS ?? pts, pts)
                }
                sampled.largestVideo = max(sampled.largestVideo, packet.size)
                if sampled.videoSamples.count < keptVideoSamples, sampled.keptBytes + packet.size <= keptVideoBytes {
                    sampled.videoSamples.append(Array(packet.data))
                    sampled.keptBytes += packet.size
                }
            } else if let first = packet.data.first {
                sampled.audioLeadingBits.append(first >> 1)
                if !sampled.silentAudioFrames, SilentAACFrame.length(of: Array(packet.data)) == packet.size {
                    sampled.silentAudioFrames = true
                }
            }
        }
        return sampled
    }

    private static func describeVideo(_ stream: UnsafeMutablePointer<AVStream>, _ sampled: Sampled) throws
        -> ReferenceVideo
    {
        let parameters = stream.pointee.codecpar.pointee
        let isHEVC = parameters.codec_id == AV_CODEC_ID_HEVC
        let extradata = Array(UnsafeBufferPointer(start: parameters.extradata, count: Int(parameters.extradata_size)))
        let configuration = try ConfigurationRecord(extradata, hevc: isHEVC)
        guard !configuration.units.isEmpty else {
            throw MediaError(.missingParameterSets, "the reference's video track has no parameter sets")
        }
        let index = Int(stream.pointee.index)
        let timeBase = stream.pointee.time_base
        var duration = mostCommon(sampled.durations[index] ?? []) ?? 0
        if duration <= 0 {
            let rate =
                stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            guard rate.num > 0, rate.den > 0 else {
                throw MediaError(.invalidInput, "the reference's video track states no frame rate")
            }
            duration = max(1, av_rescale_q(1, av_inv_q(rate), timeBase))
        }
        let firstDTS = sampled.firstDTS[index] ?? 0
        return ReferenceVideo(
            streamIndex: index, isHEVC: isHEVC, configuration: configuration, timeBase: timeBase,
            frameDuration: duration, startSeconds: Double(firstDTS) * av_q2d(timeBase),
            presentationOffset: Int64((Double(sampled.earliestVideoPTS ?? 0) / Double(duration)).rounded()),
            largestSample: sampled.largestVideo,
            pictureOrderSpacing: Self.pictureOrderSpacing(sampled.videoSamples, configuration, hevc: isHEVC),
            hasLaterSlices: sampled.videoSamples.contains {
                Self.unitTypes($0, lengthSize: configuration.lengthSize, hevc: isHEVC).filter {
                    isHEVC ? $0 < 32 : (1...5).contains($0)
                }.count > 1
            },
            unspecifiedUnitTypes: Set(
                sampled.videoSamples.flatMap { Self.unitTypes($0, lengthSize: configuration.lengthSize, hevc: isHEVC) }
                    .filter { isHEVC ? $0 >= 48 : ($0 == 0 || $0 >= 24) }))
    }

    /// The picture order spacing of the reference's first samples (`RepairTimeline.spacing(of:)`).
    private static func pictureOrderSpacing(
        _ samples: [[UInt8]], _ configuration: ConfigurationRecord, hevc: Bool
    ) -> Int64? {
        var parser: any PictureOrderParser = hevc ? HEVCPictureOrder() : H264PictureOrder()
        var pictures: [PictureOrder] = []
        for units in [configuration.units] + samples.map({ Self.units($0, lengthSize: configuration.lengthSize) }) {
            let bytes: [UInt8] = units.flatMap { [0, 0, 0, 1] + $0 }
            if let picture = try? bytes.withUnsafeBufferPointer({ try parser.parse(accessUnit: $0) }).picture {
                pictures.append(picture)
            }
        }
        return RepairTimeline.spacing(of: pictures)
    }

    /// The NAL units of a length-prefixed sample.
    private static func units(_ sample: [UInt8], lengthSize: Int) -> [[UInt8]] {
        var index = 0
        var units: [[UInt8]] = []
        while index + lengthSize < sample.count {
            let size = sample[index..<(index + lengthSize)].reduce(0) { ($0 << 8) | Int($1) }
            index += lengthSize
            guard size > 0, size <= sample.count - index else { break }
            units.append(Array(sample[index..<(index + size)]))
            index += size
        }
        return units
    }

    /// The NAL unit types of a length-prefixed sample, in order.
    private static func unitTypes(_ sample: [UInt8], lengthSize: Int, hevc: Bool) -> [Int] {
        units(sample, lengthSize: lengthSize).map { hevc ? Int($0[0] >> 1) & 0x3F : Int($0[0] & 0x1F) }
    }

    private static func describeAudio(_ stream: UnsafeMutablePointer<AVStream>, _ sampled: Sampled) throws
        -> ReferenceAudio
    {
        let parameters = stream.pointee.codecpar.pointee
        let index = Int(stream.pointee.index)
        let sampleRate = Int(parameters.sample_rate)
        let channels = Int(parameters.ch_layout.nb_channels)
        guard sampleRate > 0, channels > 0 else {
            throw MediaError(.invalidInput, "the reference's audio track states no sample rate or channel count")
        }
        let timeBase = stream.pointee.time_base
        let toSamples = { (ticks: Int64) in av_rescale_q(ticks, timeBase, AVRational(num: 1, den: Int32(sampleRate))) }
        let firstPTS = sampled.firstPTS[index] ?? 0
        let coding: ReferenceAudio.Coding
        if parameters.codec_id == AV_CODEC_ID_AAC {
            let frameSamples = mostCommon(sampled.durations[index] ?? []).map { Int(toSamples($0)) } ?? 1024
            let leading = sampled.audioLeadingBits
            coding = .aac(
                frameSamples: max(1, frameSamples), leadingBits: leading.count >= 50 ? Set(leading) : nil,
                silentFrames: sampled.silentAudioFrames)
        } else {
            var blockAlign = Int(parameters.block_align)
            if blockAlign <= 0 { blockAlign = Int(av_get_bits_per_sample(parameters.codec_id)) / 8 * channels }
            let audioPackets = sampled.layout.filter { !$0.isVideo }
            let packetSize = mostCommon(audioPackets.map(\.size)) ?? blockAlign * 1024
            coding = .pcm(
                blockAlign: blockAlign,
                runLengths: ReferenceAudio.Coding.runLengths(sampled.layout).filter {
                    $0 % blockAlign == 0
                }, packetSize: max(blockAlign, packetSize - packetSize % blockAlign))
        }
        return ReferenceAudio(
            streamIndex: index, codecName: String(cString: avcodec_get_name(parameters.codec_id)), coding: coding,
            sampleRate: sampleRate, channels: channels, startSamples: toSamples(firstPTS))
    }

    /// A decoder of the reference's track `index`, under the reference's input policy.
    func decoder(for index: Int) throws -> Decoder { try Decoder(stream: input.stream(index), of: input) }

    /// The reference's track `index`.
    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { input.stream(index) }
}
