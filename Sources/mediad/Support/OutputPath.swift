import Foundation
import MediaCore

/// Derives a job's `format` option from the output file name when the user gave none.
enum OutputPath {
    static func format(of path: String) throws -> String {
        let ext = URL(fileURLWithPath: path).pathExtension
        guard let format = ContainerFormat(fileExtension: ext) else {
            JobRunner.fail(
                MediaError(
                    .invalidOption,
                    "cannot tell the format from '\(path)'; pass --format (\(ContainerFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
                ))
        }
        return format.rawValue
    }
}
