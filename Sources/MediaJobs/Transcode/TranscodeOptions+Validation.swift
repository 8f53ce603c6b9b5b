import MediaCore

extension TranscodeJob.Options {
    /// Throws `invalid_option` with the reason for options that contradict each other or that the chosen
    /// codecs and format cannot honour, so a request is refused before any work.
    public func validate() throws {
        try validateRanges()
        try validateContainer()
        try validateVideo()
        try validateAudio()
        if let start, let end, end <= start {
            throw invalid("end (\(end)) must be after start (\(start))")
        }
        if videoCodec == .copy || audioCodec == .copy, start != nil || end != nil {
            throw invalid(
                "start and end cut frame-exactly by re-encoding; a copied track can only be cut on keyframes "
                    + "(use the remux kind for that)")
        }
    }

    /// The numeric ranges, checked again here for options decoded from a stored record.
    private func validateRanges() throws {
        let checks: [(String, Int?, ClosedRange<Int>)] = [
            ("video_bitrate", videoBitrate, Self.videoBitRates), ("max_bitrate", maxBitrate, Self.videoBitRates),
            ("buffer_size", bufferSize, Self.bufferSizes), ("audio_bitrate", audioBitrate, Self.audioBitRates),
            ("sample_rate", sampleRate, Self.sampleRates), ("channels", channels, Self.channelCounts),
            ("width", width, Self.dimensions), ("height", height, Self.dimensions), ("gop", gop, Self.gops),
            ("bframes", bframes, Self.bFrames), ("crf", crf, Self.anyCRF),
            ("loudness", loudness, Self.loudnessTargets), ("true_peak", truePeak, Self.truePeaks),
        ]
        for (name, value, range) in checks {
            if let value, !range.contains(value) { throw invalid("\(name) \(value) is outside \(range)") }
        }
        for (name, seconds) in [("start", start), ("end", end)] {
            if let seconds, !(0...OptionReader.maximumSeconds).contains(seconds) {
                throw invalid("\(name) (\(seconds)) is outside 0…\(Int(OptionReader.maximumSeconds)) seconds")
            }
        }
        if let fps, !fps.isWithinLimits { throw invalid("fps \(fps) is outside \(FrameRate.limitsText)") }
    }

    private func validateContainer() throws {
        if fragmented && !format.isISOBaseMedia {
            throw invalid("fragmented applies to mp4, mov and m4a, not \(format.rawValue)")
        }
        if globalSidx != nil && !fragmented { throw invalid("global_sidx applies to fragmented output") }
        if format.isAudioOnly && videoCodec != .none {
            throw invalid("\(format.rawValue) holds audio only: video_codec must be none")
        }
        if videoCodec.reencodes && !format.videoCodecs.contains(videoCodec) {
            throw invalid(
                "\(format.rawValue) cannot carry \(videoCodec.rawValue) video (it takes "
                    + "\(format.videoCodecs.map(\.rawValue).joined(separator: ", ")))")
        }
        let audio = resolvedAudioCodec
        if audio.reencodes && !format.audioCodecs.contains(audio) {
            throw invalid(
                "\(format.rawValue) cannot carry \(audio.rawValue) audio (it takes "
                    + "\(format.audioCodecs.map(\.rawValue).joined(separator: ", ")))")
        }
        if videoCodec == .none && audio == .none { throw invalid("video_codec and audio_codec are both none") }
    }

    private func validateVideo() throws {
        let videoOptions: [(String, Bool)] = [
            ("crf", crf != nil), ("video_bitrate", videoBitrate != nil), ("max_bitrate", maxBitrate != nil),
            ("preset", preset != nil), ("profile", profile != nil), ("level", level != nil), ("gop", gop != nil),
            ("bframes", bframes != nil), ("fps", fps != nil), ("width", width != nil), ("height", height != nil),
            ("pixel_format", pixelFormat != nil), ("measure", measure != .none),
        ]
        guard videoCodec.reencodes else {
            if let given = videoOptions.first(where: \.1) {
                throw invalid("\(given.0) applies only when video is encoded, not with video_codec=\(videoCodec)")
            }
            return
        }
        if crf != nil && videoBitrate != nil {
            throw invalid("crf (constant quality) and video_bitrate (average rate) are alternatives: give one")
        }
        if let crf, !videoCodec.crfRange.contains(crf) {
            throw invalid("crf \(crf) is outside \(videoCodec.crfRange) for \(videoCodec)")
        }
        if maxBitrate != nil && !videoCodec.hasBFrames {
            throw invalid("max_bitrate and buffer_size (VBV) apply to h264 and hevc, not \(videoCodec)")
        }
        if let maxBitrate, let videoBitrate, maxBitrate < videoBitrate {
            throw invalid("max_bitrate (\(maxBitrate)) is below video_bitrate (\(videoBitrate))")
        }
        try validateProfile()
        if let level, !videoCodec.levels.contains(level) {
            throw invalid(
                videoCodec.levels.isEmpty
                    ? "level applies to h264 and hevc, not \(videoCodec)"
                    : "\(videoCodec) has no level \(level) (it has \(videoCodec.levels.joined(separator: ", ")))")
        }
        if let bframes, bframes > 0, !videoCodec.hasBFrames {
            throw invalid("bframes applies to h264 and hevc; \(videoCodec) has no B-frames")
        }
        let pixel = effectivePixelFormat
        if !videoCodec.pixelFormats.contains(pixel.libavFormat) {
            throw invalid("the \(videoCodec) encoder takes no \(pixel.rawValue) frames")
        }
        for (name, value) in [("width", width), ("height", height)] {
            if let value, value % 2 != 0 { throw invalid("\(name) \(value) must be even (chroma is subsampled)") }
        }
        if let limit = videoCodec.sizeLimit {
            switch (width, height) {
            case (let width?, let height?): try limit.check(width: width, height: height, what: "the output")
            case (let width?, nil): try limit.check(width: width, what: "the output")
            case (nil, let height?): try limit.check(height: height, what: "the output")
            case (nil, nil): break
            }
        }
    }

    private func validateProfile() throws {
        guard let profile else { return }
        guard videoCodec.profiles.contains(profile) else {
            let allowed = videoCodec.profiles.map(\.rawValue).joined(separator: ", ")
            throw invalid(
                allowed.isEmpty
                    ? "profile applies to h264 and hevc, not \(videoCodec)"
                    : "\(videoCodec) has no \(profile) profile (it has \(allowed))")
        }
        if profile == .baseline, let bframes, bframes > 0 {
            throw invalid("the baseline profile has no B-frames: bframes must be 0")
        }
        let pixel = effectivePixelFormat
        let fits = profile == .main10 ? pixel == .yuv420p || pixel == .yuv420p10le : pixel.isEightBit420
        if !fits { throw invalid("the \(profile) profile cannot code \(pixel.rawValue) frames") }
    }

    private func validateAudio() throws {
        let audio = resolvedAudioCodec
        guard audio.reencodes else {
            let given = [
                ("audio_bitrate", audioBitrate != nil), ("sample_rate", sampleRate != nil),
                ("channels", channels != nil), ("loudness", loudness != nil),
            ]
            if let option = given.first(where: \.1) {
                throw invalid("\(option.0) applies only when audio is encoded, not with audio_codec=\(audio)")
            }
            return
        }
        let bitRates = audio == .mp3 ? 8_000...320_000 : audio == .opus ? 8_000...510_000 : Self.audioBitRates
        if let audioBitrate, !bitRates.contains(audioBitrate) {
            throw invalid("audio_bitrate \(audioBitrate) is outside \(bitRates) for \(audio)")
        }
        if let sampleRate, let codecID = audio.codecID, let rates = Encoder.supportedSampleRates(codecID),
            !rates.contains(sampleRate)
        {
            throw invalid(
                "\(audio) cannot be coded at \(sampleRate) Hz (it takes \(rates.map(String.init).joined(separator: ", ")))"
            )
        }
        if let channels, channels > audio.maximumChannels {
            throw invalid("\(audio) takes at most \(audio.maximumChannels) channels, not \(channels)")
        }
    }

    private func invalid(_ reason: String) -> MediaError { MediaError(.invalidOption, reason) }
}
