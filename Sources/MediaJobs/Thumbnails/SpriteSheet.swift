import CFFmpeg
import MediaCore

/// Tiles every picture of a thumbnails job into one sheet with libavfilter's `tile`, row by row, at most
/// ten to a row; the last row is padded black when the count does not fill it.
final class SpriteSheet {
    static let maximumColumns = 10

    let columns: Int
    let rows: Int
    let tileWidth: Int
    let tileHeight: Int
    let format: ImageEncoder.Format
    private let graph: FilterGraph
    private var added: Int64 = 0

    /// A sheet for `count` pictures shaped like `tile`.
    init(count: Int, tile: Frame, format: ImageEncoder.Format) throws {
        columns = min(count, Self.maximumColumns)
        rows = (count + columns - 1) / columns
        tileWidth = tile.width
        tileHeight = tile.height
        self.format = format
        graph = try FilterGraph(
            "[in]tile=\(columns)x\(rows)[out]",
            sources: [
                .video(
                    name: "in", width: tileWidth, height: tileHeight,
                    pixelFormat: tile.pixelFormat,
                    timeBase: AVRational(num: 1, den: 1))
            ],
            sinks: [.video("out")])
    }

    /// Places the next picture; it must have the first one's size.
    func add(_ picture: Frame) throws {
        guard picture.width == tileWidth, picture.height == tileHeight else {
            throw MediaError(
                .invalidInput,
                "the video changes size mid-stream, so its pictures cannot share a sprite sheet; give width and height")
        }
        picture.pts = added
        added += 1
        try graph.push(picture, to: "in")
    }

    /// Encodes the sheet to `path`.
    func write(to path: String) throws {
        try graph.finish("in")
        let sheet = Frame()
        guard try graph.pull(from: "out", into: sheet) == .frame else {
            throw MediaError(.internalError, "the sprite filter graph gave no sheet")
        }
        try ImageEncoder(format, width: sheet.width, height: sheet.height, pixelFormat: sheet.pixelFormat)
            .write(sheet, to: path)
    }
}
