/// What a thumbnails job wrote: a picture per point, and the sprite sheet with its cues when asked.
public struct ThumbnailsResult: JobResult, Equatable {
    /// One picture.
    public struct Thumbnail: Codable, Sendable, Equatable {
        /// The file, `thumb_0001.jpg`, …
        public var file: String
        /// The point asked for, in seconds from the start.
        public var time: Double
        /// When the chosen frame is shown, in seconds from the start.
        public var frameTime: Double

        enum CodingKeys: String, CodingKey {
            case file, time
            case frameTime = "frame_time"
        }
    }

    /// The tiled sheet and the WebVTT cues pointing into it.
    public struct Sprite: Codable, Sendable, Equatable {
        public var file: String
        public var cues: String
        public var columns: Int
        public var rows: Int
    }

    public var outputs: [String]
    public var warnings: [String]
    public var thumbnails: [Thumbnail]
    /// The pictures' size (after rotation and scaling).
    public var width: Int
    public var height: Int
    public var format: String
    public var sprite: Sprite?
    /// Seeks made and frames decoded to take the pictures: a few per point, not the whole file.
    public var seeks: Int
    public var framesDecoded: Int

    enum CodingKeys: String, CodingKey {
        case outputs, warnings, thumbnails, width, height, format, sprite, seeks
        case framesDecoded = "frames_decoded"
    }
}
