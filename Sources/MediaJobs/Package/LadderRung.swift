/// One rendition of an ABR ladder, by its name in `renditions`: a picture height with the width of a 16:9
/// picture, an H.264 average bit rate with a peak of 1.5 times it, and a profile.
///
/// The bit rates follow Apple's HLS Authoring Specification's H.264 ladder (6 Mbit/s at 1080p, 3 Mbit/s
/// at 720p), filled in for the sizes it lacks; High profile where every current player decodes it, Main
/// below 720p for the older phones and set-top boxes that pick the small renditions.
public enum LadderRung: String, Sendable, Codable, CaseIterable {
    case p2160 = "2160p"
    case p1440 = "1440p"
    case p1080 = "1080p"
    case p720 = "720p"
    case p480 = "480p"
    case p360 = "360p"
    case p240 = "240p"

    /// The picture height; the width follows the source's shape (a 16:9 source gets `width`).
    public var height: Int {
        switch self {
        case .p2160: 2160
        case .p1440: 1440
        case .p1080: 1080
        case .p720: 720
        case .p480: 480
        case .p360: 360
        case .p240: 240
        }
    }

    /// The width of a 16:9 picture of `height`, even.
    public var width: Int { (height * 16 / 9 + 1) / 2 * 2 }

    /// The average bit rate asked of the encoder, bits per second.
    public var bitRate: Int {
        switch self {
        case .p2160: 16_000_000
        case .p1440: 10_000_000
        case .p1080: 6_000_000
        case .p720: 3_000_000
        case .p480: 1_500_000
        case .p360: 800_000
        case .p240: 400_000
        }
    }

    /// The peak bit rate (x264's VBV maximum rate), 1.5 times the average: Apple asks a VOD peak of at
    /// most twice the average.
    public var maxBitRate: Int { bitRate * 3 / 2 }

    public var profile: TranscodeJob.VideoProfile { height >= 720 ? .high : .main }
}
