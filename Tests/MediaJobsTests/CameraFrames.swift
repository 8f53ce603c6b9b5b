import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport

/// Raw camera frames and PCM made by the ffmpeg CLI, the encode runs of the camera tests, and the oracle's
/// measures of what came out (PSNR, key frames, picture types, NAL units).
enum CameraFrames {
    /// `seconds` of `width`x`height` test pattern at `fps` as headerless `pixelFormat` frames.
    static func pattern(
        _ pixelFormat: String, width: Int = 160, height: Int = 120, fps: Int = 30, seconds: Int = 2
    ) throws -> String {
        try Fixtures.make(
            "camera_\(width)x\(height)_\(fps)_\(seconds)s.\(pixelFormat)",
            [
                "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(fps):duration=\(seconds)", "-pix_fmt",
                pixelFormat, "-f", "rawvideo",
            ])
    }

    /// The options of `width`x`height` frames at `fps` in `pixelFormat`, with `extra`.
    static func options(
        _ pixelFormat: String, width: Int = 160, height: Int = 120, fps: Int = 30, _ extra: [String: String] = [:]
    ) -> [String: String] {
        [
            "pixel_format": pixelFormat, "width": "\(width)", "height": "\(height)", "fps": "\(fps)",
            "preset": "veryfast",
        ]
        .merging(extra) { _, given in given }
    }

    /// Runs an encode through the catalog's entry point, as the worker and the command line do.
    static func encode(
        _ inputs: [String: String], _ values: [String: String], in scratch: Scratch
    ) throws -> (EncodeResult, String) {
        let options = try EncodeJob.Options(parsing: values)
        let output = scratch.file(EncodeJob.primaryOutput(for: options))
        let result = try EncodeJob.run(options, inputs: JobInputFiles(inputs), output: output, context: JobContext())
        return (result, output)
    }

    /// ffmpeg's PSNR (the average of the planes, dB) of `decoded` against the raw `reference` frames;
    /// -infinity when ffmpeg printed none.
    static func psnr(_ decoded: String, reference: String, pixelFormat: String, width: Int, height: Int, fps: Int)
        throws -> Double
    {
        let run = try Command.run(
            "ffmpeg",
            [
                "-hide_banner", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-s", "\(width)x\(height)", "-r", "\(fps)",
                "-i", reference, "-r", "\(fps)", "-i", decoded, "-lavfi", "[0:v]format=yuv420p[ref];[1:v][ref]psnr",
                "-f", "null", "-",
            ])
        guard let line = run.stderr.split(separator: "\n").last(where: { $0.contains("PSNR") }),
            let value = line.split(separator: " ").first(where: { $0.hasPrefix("average:") })?.dropFirst(8),
            let psnr = Double(value)
        else { return -.infinity }
        return psnr
    }

    /// Frames ffprobe decodes from the file's first video stream; -1 when it prints no count.
    static func frameCount(_ path: String) throws -> Int {
        let text = try Command.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                "-of", "csv=p=0", path,
            ]
        ).text
        // MPEG-TS lists its streams under its program as well: the first count is the stream's.
        return text.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    /// Each decoded frame's picture type (`I`, `P`, `B`) and whether it is a key frame, in output order.
    static func pictures(_ path: String) throws -> [(type: String, key: Bool)] {
        try Command.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame,pict_type", "-of",
                "csv=p=0", path,
            ]
        ).text.split(separator: "\n").map { line in
            let fields = line.split(separator: ",")
            return (String(fields.last ?? ""), fields.first == "1")
        }
    }

    /// The NAL unit types of an Annex-B stream, in order (H.264: the low 5 bits of the header byte;
    /// H.265: bits 1…6).
    static func nalTypes(_ path: String, hevc: Bool) throws -> [Int] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var types: [Int] = []
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                let header = Int(bytes[index + 3])
                types.append(hevc ? (header >> 1) & 0x3f : header & 0x1f)
                index += 3
            } else {
                index += 1
            }
        }
        return types
    }
}
