import CFFmpeg

extension MediaInfo {
    /// Describes an opened input (call `findStreamInfo()` first for complete codec parameters).
    public init(describing input: InputFile) {
        let context = input.context
        let tags = LibavTags.dictionary(context.pointee.metadata)
        self.init(
            container: input.container.rawValue,
            formatName: String(cString: context.pointee.iformat.pointee.name),
            majorBrand: tags["major_brand"],
            duration: input.duration,
            bitRate: context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil,
            size: input.size,
            tags: tags.isEmpty ? nil : tags,
            tracks: input.streams.map(Track.init(describing:)))
        let damage = input.damageWarnings(streams: [], readToEnd: false, outputDuration: nil)
        warnings = damage.isEmpty ? nil : damage
    }
}

extension MediaInfo.Track {
    /// Describes one libav stream.
    public init(describing stream: UnsafeMutablePointer<AVStream>) {
        let parameters = stream.pointee.codecpar.pointee
        self.init(
            index: Int(stream.pointee.index), kind: Self.kindName(parameters.codec_type),
            codec: String(cString: avcodec_get_name(parameters.codec_id)))
        codecTag = Self.fourCC(parameters.codec_tag)
        if let name = avcodec_profile_name(parameters.codec_id, parameters.profile) { profile = String(cString: name) }
        bitRate = parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil
        let timeBase = stream.pointee.time_base
        if stream.pointee.duration != mediad_nopts_value(), stream.pointee.duration > 0 {
            duration = Double(stream.pointee.duration) * av_q2d(timeBase)
        }
        if stream.pointee.start_time != mediad_nopts_value() {
            startTime = Double(stream.pointee.start_time) * av_q2d(timeBase)
        }
        let tags = LibavTags.dictionary(stream.pointee.metadata)
        language = tags["language"].flatMap { $0 == "und" ? nil : $0 }
        frameCount = stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil
        switch parameters.codec_type {
        case AVMEDIA_TYPE_AUDIO:
            sampleRate = parameters.sample_rate > 0 ? Int(parameters.sample_rate) : nil
            channels = parameters.ch_layout.nb_channels > 0 ? Int(parameters.ch_layout.nb_channels) : nil
            channelLayout = Self.layoutName(stream.pointee.codecpar)
        case AVMEDIA_TYPE_VIDEO:
            width = parameters.width > 0 ? Int(parameters.width) : nil
            height = parameters.height > 0 ? Int(parameters.height) : nil
            let rate =
                stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            frameRate = rate.num > 0 && rate.den > 0 ? "\(rate.num)/\(rate.den)" : nil
            if let name = av_get_pix_fmt_name(AVPixelFormat(parameters.format)) { pixelFormat = String(cString: name) }
            rotation = Self.rotation(stream)
            let aspect = parameters.sample_aspect_ratio
            sampleAspectRatio =
                aspect.num > 0 && aspect.den > 0 && aspect.num != aspect.den ? "\(aspect.num):\(aspect.den)" : nil
        default:
            break
        }
        let flags = stream.pointee.disposition
        var names: [String] = []
        if flags & AV_DISPOSITION_DEFAULT != 0 { names.append("default") }
        if flags & AV_DISPOSITION_ATTACHED_PIC != 0 { names.append("attached_pic") }
        if flags & AV_DISPOSITION_FORCED != 0 { names.append("forced") }
        disposition = names.isEmpty ? nil : names
    }

    /// Clockwise degrees from a display matrix in stream side data, or nil when there is none.
    public static func rotation(_ stream: UnsafeMutablePointer<AVStream>) -> Int? {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
            return nil
        }
        let counterClockwise = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard counterClockwise.isFinite else { return nil }
        let clockwise = Int((-counterClockwise).rounded())
        return ((clockwise % 360) + 360) % 360
    }

    /// `audio`, `video`, `subtitle`, `attachment` or `data`.
    public static func kindName(_ type: AVMediaType) -> String {
        switch type {
        case AVMEDIA_TYPE_AUDIO: "audio"
        case AVMEDIA_TYPE_VIDEO: "video"
        case AVMEDIA_TYPE_SUBTITLE: "subtitle"
        case AVMEDIA_TYPE_ATTACHMENT: "attachment"
        default: "data"
        }
    }

    static func layoutName(_ parameters: UnsafeMutablePointer<AVCodecParameters>) -> String? {
        guard parameters.pointee.ch_layout.nb_channels > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 128)
        guard av_channel_layout_describe(&parameters.pointee.ch_layout, &buffer, buffer.count) > 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func fourCC(_ tag: UInt32) -> String? {
        guard tag != 0 else { return nil }
        let bytes = (0..<4).map { UInt8((tag >> (8 * UInt32($0))) & 0xFF) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return "0x" + String(tag, radix: 16) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
