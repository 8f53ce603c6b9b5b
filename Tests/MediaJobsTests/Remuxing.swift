import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport

/// Remuxes `input` into `format` in `scratch` (`out.<ext>`) with string options as the API takes them;
/// returns the output's path and the job's result. Shared by the remux suites.
func remux(_ input: String, to format: ContainerFormat, in scratch: Scratch, _ values: [String: String] = [:])
    throws -> (String, RemuxResult)
{
    var options = values
    options["format"] = format.rawValue
    let output = scratch.file("out.\(format.fileExtension)")
    let result = try RemuxJob(input: input, output: output, options: try .init(parsing: options)).run(JobContext())
    return (output, result)
}
