import MediaCore

// Which outputs each kind writes front to back (`OutputGrowth.appended`), by the muxer that writes them:
// libav 5.1's mpegts, adts, h264/hevc, rawvideo, yuv4mpegpipe and raw PCM muxers never seek back, nor does
// its mov muxer for a fragmented file without `global_sidx` (an empty `moov` first, then `moof`/`mdat` pairs
// and the `mfra` appended at the end). Every other output is completed when the job ends: the mov muxer
// writes a whole file's `moov` then (and moves it to the front for faststart), matroska and webm go back
// to the header for the duration, the seek head and the cues, wav for its RIFF sizes, mp3 for its Xing
// header, flv and asf for their headers.

extension RemuxJob {
    public static func growth(ofOutput name: String, options: Options) -> OutputGrowth? {
        let appends = options.format == .ts || (options.writesFragments && !options.indexesFragments)
        return primaryOnly(name, options: options, appends: appends)
    }
}

extension TranscodeJob {
    public static func growth(ofOutput name: String, options: Options) -> OutputGrowth? {
        let appends =
            options.format == .ts || options.format == .adts || (options.fragmented && options.globalSidx == false)
        return primaryOnly(name, options: options, appends: appends)
    }
}

extension MuxJob {
    public static func growth(ofOutput name: String, options: Options) -> OutputGrowth? {
        primaryOnly(name, options: options, appends: options.format == .ts)
    }
}

extension EncodeJob {
    public static func growth(ofOutput name: String, options: Options) -> OutputGrowth? {
        primaryOnly(name, options: options, appends: [.ts, .adts, .h264, .h265].contains(options.format))
    }
}

extension DecodeJob {
    /// WAV has its sizes written at the end; the other formats are appended. Without a format the output is
    /// `output.wav`, or `output.y4m` for an input without audio.
    public static func growth(ofOutput name: String, options: Options) -> OutputGrowth? {
        let possible = options.format.map { ["output." + $0.rawValue] } ?? ["output.wav", "output.y4m"]
        guard possible.contains(name) else { return nil }
        return name == "output.wav" ? .completedAtEnd : .appended
    }
}

extension DemuxJob {
    /// The elementary streams (`audio.aac`, `video.h264`, `audio.2.aac`, …) are appended; `info.json` is
    /// written whole at the end.
    public static func growth(ofOutput name: String, options: Options) -> OutputGrowth? {
        if name == infoFileName { return .completedAtEnd }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.dropFirst().dropLast().allSatisfy({ Int($0) != nil }) else {
            return nil
        }
        switch (parts.first, parts.last) {
        case ("audio", "aac"), ("video", "h264"), ("video", "h265"): return .appended
        default: return nil
        }
    }
}

extension PackageJob {
    /// Packages: the HLS master and media playlists and the DASH MPD are replaced as segments are written
    /// (`LivePlaylists`, `LiveMPD`), and every initialization and media segment is written whole under its
    /// name: all `replaced`. The I-frame playlists are written when the job ends. A track folder is named
    /// by the input (`720p`, `video`, `audio`, `audio_2`), so any such name is accepted here.
    public static func growth(ofOutput name: String, options: Options) -> OutputGrowth? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts == [dashManifestName] { return options.format.writesDASH ? .replaced : nil }
        if parts == [hlsMasterName] { return options.format.writesHLS ? .replaced : nil }
        guard parts.count == 2, isTrackFolder(parts[0]) else { return nil }
        let file = parts[1]
        switch file {
        case "index.m3u8": return options.format.writesHLS ? .replaced : nil
        case "iframes.m3u8": return options.format.writesHLS && options.segmentFormat == .fmp4 ? .completedAtEnd : nil
        case "init.mp4", "init.m4a": return options.segmentFormat == .fmp4 ? .replaced : nil
        default:
            let suffix = "." + (options.segmentFormat == .ts ? "ts" : "m4s")
            guard file.hasPrefix("seg_"), file.hasSuffix(suffix) else { return nil }
            let number = file.dropFirst(4).dropLast(suffix.count)
            return number.count >= 5 && isPositive(number) ? .replaced : nil
        }
    }

    /// A folder `PackagePlan` names: `<height>p`, `video`, `audio` or `audio_<n>`.
    private static func isTrackFolder(_ folder: String) -> Bool {
        if folder == "video" || folder == "audio" { return true }
        if folder.hasPrefix("audio_") { return isPositive(folder.dropFirst(6)) }
        return folder.hasSuffix("p") && isPositive(folder.dropLast())
    }

    /// Whether `text` is ASCII digits only, and not zero.
    private static func isPositive(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber } && text.contains { $0 != "0" }
    }
}
