import CFFmpeg

/// The versions of the libav libraries this process runs with (the shared libraries loaded, which may be
/// newer than the headers it was built against), for `mediad --version` and bug reports.
public enum LibavVersion {
    /// `libavformat 59.27.100, libavcodec 59.37.100, libavutil 57.28.100, libswresample 4.7.100`.
    public static var description: String {
        [
            ("libavformat", avformat_version()), ("libavcodec", avcodec_version()),
            ("libavutil", avutil_version()), ("libswresample", swresample_version()),
        ]
        .map { name, version in "\(name) \(version >> 16).\((version >> 8) & 0xff).\(version & 0xff)" }
        .joined(separator: ", ")
    }
}
