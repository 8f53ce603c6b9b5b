import CFFmpeg
import MediaCore

/// Tiles every picture of a thumbnails job into one sheet with libavfilter's `tile`, row by row, at most
/// ten to a row; the last row is padded black when the count does not fill it.
///
/// The sheet is laid out for every point of the schedule; when points close together share a picture
/// (fewer pictures than points), the rows and columns left empty are cropped off before it is encoded.
final class SpriteSheet {
    static let maximumColumns = 10

    /// The layout for every point: pictures go to `(index % columns, index / columns)`.
    let columns: Int
    let rows: Int
    let tileWidth: Int
    let tileHeight: Int
    let format: ImageEncoder.Format
    private let graph: FilterGraph
    private var added: Int64 = 0

    /// A sheet for up to `count` pictures shaped like `tile`; `invalid_option` when such a sheet is larger
    /// than the format takes.
    init(count: Int, tile: Frame, format: ImageEncoder.Format) throws {
        columns = min(count, Self.maximumColumns)
        rows = (count + columns - 1) / columns
        tileWidth = tile.width
        tileHeight = tile.height
        self.format = format
        do {
            try format.sizeLimit.check(
                width: columns * tileWidth, height: rows * tileHeight,
                what: "the sprite sheet of \(count) pictures, ten to a row,")
        } catch let error as MediaError {
            throw MediaError(error.code, error.message + "; give a smaller width or height")
        }
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

    /// The columns and rows the pictures added so far fill.
    var usedColumns: Int { min(Int(added), columns) }
    var usedRows: Int { (Int(added) + columns - 1) / columns }

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

    /// Encodes the sheet, cropped to the pictures added, to `path`.
    func write(to path: String) throws {
        try graph.finish("in")
        let sheet = Frame()
        guard try graph.pull(from: "out", into: sheet) == .frame else {
            throw MediaError(.internalError, "the sprite filter graph gave no sheet")
        }
        sheet.pointer.pointee.crop_right = (columns - usedColumns) * tileWidth
        sheet.pointer.pointee.crop_bottom = (rows - usedRows) * tileHeight
        try LibavError.check(
            av_frame_apply_cropping(sheet.pointer, Int32(AV_FRAME_CROP_UNALIGNED)), "cropping the sprite sheet",
            code: .internalError)
        try ImageEncoder(
            format, width: sheet.width, height: sheet.height, pixelFormat: sheet.pixelFormat, what: "the sprite sheet"
        ).write(sheet, to: path)
    }
}
