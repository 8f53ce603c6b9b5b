import Foundation
import JobStore
import MediaCore
import MediaJobs

/// What differs between job kinds at the service's edge: the options each takes (validated with the
/// engine's own parsers before anything is queued), the upload parts it expects, and its output names.
enum JobSpec {
    /// Validates `values` with the kind's option parser and returns the options after defaults as JSON.
    static func options(for kind: JobKind, _ values: [String: String]) throws -> JSONValue {
        do {
            switch kind {
            case .remux: return try json(RemuxJob.Options(parsing: values))
            case .mux: return try json(MuxJob.Options(parsing: values))
            case .encode:
                let options = try EncodeJob.Options(parsing: values)
                try options.validate()
                return try json(options)
            case .decode: return try json(DecodeJob.Options(parsing: values))
            case .demux:
                try OptionReader(values).finish()
                return .object([:])
            }
        } catch let error as MediaError {
            throw ServiceError(error)
        }
    }

    /// The typed options stored in a job record.
    static func decode<T: Decodable>(_ type: T.Type, from options: JSONValue) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(options))
    }

    static func json<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    /// Upload part names a kind accepts: `file`, or `audio`/`video` for mux.
    static func partNames(for kind: JobKind) -> [String] { kind == .mux ? ["audio", "video"] : ["file"] }

    /// The name an input is stored under in the job directory.
    static func inputName(forPart part: String) -> String { part == "file" ? "input" : part }

    /// The primary output's file name for a job with these options.
    static func primaryOutput(for kind: JobKind, options: JSONValue) throws -> String {
        switch kind {
        case .remux: return "output." + (try decode(RemuxJob.Options.self, from: options)).format.fileExtension
        case .mux: return "output." + (try decode(MuxJob.Options.self, from: options)).format.fileExtension
        case .encode:
            let format = try decode(EncodeJob.Options.self, from: options).format
            return "output." + (format == .adts ? "aac" : format.rawValue)
        case .decode: return "output." + (try decode(DecodeJob.Options.self, from: options)).format.rawValue
        case .demux: return DemuxJob.infoFileName
        }
    }

    /// The MIME type served for an output, by its extension.
    static func contentType(ofOutput name: String) -> String {
        let ext = URL(fileURLWithPath: name).pathExtension.lowercased()
        if let format = ContainerFormat(fileExtension: ext), ext == format.fileExtension { return format.contentType }
        switch ext {
        case "aac": return "audio/aac"
        case "wav": return "audio/wav"
        case "h264": return "video/h264"
        case "h265": return "video/h265"
        case "json": return "application/json"
        default: return "application/octet-stream"
        }
    }
}
