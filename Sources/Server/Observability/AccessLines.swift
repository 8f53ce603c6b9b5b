import Logging
import MediadHTTP
import MediadRuntime

/// The access log's lines written by mediad's own log handler (`mediad.http`, in the configured format
/// and level) with their fields in order: the same lines a `Logger` would give, without building and
/// sorting a metadata dictionary for every request, which was a tenth of the CPU of a status poll.
struct AccessLines: AccessLineWriter {
    private let handler: LogLineHandler

    init(format: LogLineHandler.Format, level: Logger.Level) {
        handler = LogLineHandler(label: "mediad.http", format: format, level: level)
    }

    var writesInfo: Bool { handler.logLevel <= .info }

    func writeRequest(_ fields: [(key: String, value: Logger.Metadata.Value)]) {
        handler.log(level: .info, message: "request", sortedFields: fields)
    }
}
