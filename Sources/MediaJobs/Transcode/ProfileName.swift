import CFFmpeg
import MediaCore

/// The profiles of a written file's tracks, as libav names them ("High", "Main 10", "LC").
///
/// libx264 and libx265 do not report the profile they chose back into the codec context, so the output
/// is opened again and libav reads each track's profile from its configuration record (`avcC`, `hvcC`,
/// `av1C`, Matroska's CodecPrivate) as any reader would.
enum ProfileName {
    /// One entry per stream of the file at `path`, in stream order; nil where libav names no profile, and
    /// all nil for a file libav cannot read back (MP3, which has no profile).
    static func ofTracks(inFileAt path: String, count: Int) -> [String?] {
        guard let input = try? InputFile(path: path, accepting: InputContainer.allCases, policy: .transcoding),
            (try? input.findStreamInfo()) != nil
        else { return Array(repeating: nil, count: count) }
        return (0..<count).map { index in
            guard index < input.streamCount else { return nil }
            let parameters = input.stream(index).pointee.codecpar.pointee
            return avcodec_profile_name(parameters.codec_id, parameters.profile).map { String(cString: $0) }
        }
    }
}
