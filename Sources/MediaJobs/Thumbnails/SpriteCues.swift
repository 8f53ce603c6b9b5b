/// The WebVTT file of a sprite sheet: one cue per picture, pointing at its tile with a media fragment
/// (`sprite.jpg#xywh=x,y,w,h`), the form players read for seek previews.
///
/// Cues follow each other without gaps: the first starts at 0, each ends where the next picture's point
/// is, and the last ends at the duration, so every moment of the video has a picture.
struct SpriteCues {
    /// Seconds each picture was taken at, ascending.
    var points: [Double]
    /// Where the last cue ends.
    var duration: Double
    var sheetName: String
    var columns: Int
    var tileWidth: Int
    var tileHeight: Int

    var text: String {
        var lines = ["WEBVTT", ""]
        for (index, point) in points.enumerated() {
            let start = index == 0 ? 0 : point
            let end = index + 1 < points.count ? points[index + 1] : max(duration, point)
            let (x, y) = ((index % columns) * tileWidth, (index / columns) * tileHeight)
            lines.append("\(Self.timestamp(start)) --> \(Self.timestamp(end))")
            lines.append("\(sheetName)#xywh=\(x),\(y),\(tileWidth),\(tileHeight)")
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// `hh:mm:ss.ttt`, rounded to the millisecond.
    static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let (hours, rest) = milliseconds.quotientAndRemainder(dividingBy: 3_600_000)
        let (minutes, rest2) = rest.quotientAndRemainder(dividingBy: 60_000)
        let (wholeSeconds, millis) = rest2.quotientAndRemainder(dividingBy: 1000)
        func pad(_ value: Int, _ width: Int) -> String {
            String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
        }
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(wholeSeconds, 2)).\(pad(millis, 3))"
    }
}
