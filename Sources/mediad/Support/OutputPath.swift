import Foundation
import MediaCore

/// Derives a job's `format` option from the output file name when the user gave none.
enum OutputPath {
    /// The container format named by the output's extension (remux, mux).
    static func format(of path: String) throws -> String {
        try format(
            of: path,
            byExtension: Dictionary(
                uniqueKeysWithValues: [
                    "mp4", "m4v", "3gp", "mov", "qt", "m4a", "mkv", "mka", "ts", "m2ts", "mts", "flv", "asf", "wmv",
                    "wma",
                ]
                .compactMap { ext in ContainerFormat(fileExtension: ext).map { (ext, $0.rawValue) } }))
    }

    /// The format `byExtension` names for the output's extension; exits with `invalid_option` if none.
    static func format(of path: String, byExtension formats: [String: String]) throws -> String {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let format = formats[ext] else {
            let known = formats.keys.sorted().map { "." + $0 }.joined(separator: ", ")
            JobRunner.fail(
                MediaError(.invalidOption, "cannot tell the format from '\(path)' (known: \(known)); pass --format"))
        }
        return format
    }

    /// Refuses an output that is one of the inputs (the same file by device and inode, so `./a.mp4`, a
    /// symlink or a hard link count too): writing it would destroy the input.
    static func refuseOverwriting(_ inputs: some Sequence<String>, with output: String) {
        var target = stat()
        guard stat(output, &target) == 0 else { return }
        for input in inputs {
            var source = stat()
            if stat(input, &source) == 0, source.st_dev == target.st_dev, source.st_ino == target.st_ino {
                JobRunner.fail(
                    MediaError(.invalidOption, "the output \(output) is the input \(input); choose another -o"))
            }
        }
    }
}
