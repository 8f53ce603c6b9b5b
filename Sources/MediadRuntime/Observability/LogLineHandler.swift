import Foundation
import JobStore
import Logging
import Synchronization

/// mediad's log handler: one line per event on stderr, as `text` for people or `json` for log pipelines.
///
/// Text: `2026-11-22T22:40:01.123Z info mediad.http: request method=GET path=/jobs status=200`, values
/// with spaces, quotes or `=` quoted. JSON: one object a line with `timestamp`, `level`, `logger`,
/// `message` and `metadata` (numbers and booleans stay JSON numbers and booleans).
public struct LogLineHandler: LogHandler {
    /// How lines are written.
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let format: Format
    private let sink: @Sendable (String) -> Void

    /// A handler for `label` that hands each finished line (with its newline) to `sink`.
    public init(
        label: String, format: Format, level: Logger.Level,
        sink: @escaping @Sendable (String) -> Void = LogLineHandler.standardError
    ) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.sink = sink
    }

    /// Makes every `Logger` of the process use this handler. Call once, before creating loggers.
    public static func bootstrap(format: Format, level: Logger.Level) {
        LoggingSystem.bootstrap { label in LogLineHandler(label: label, format: format, level: level) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // Merged only when both have fields: most events carry only their own.
        let merged =
            if let fields = event.metadata { metadata.isEmpty ? fields : metadata.merging(fields) { $1 } } else {
                metadata
            }
        sink(line(level: event.level, message: event.message.description, metadata: merged, date: Date()))
    }

    /// Writes a line whose fields come in key order already, as `log` would write them: the server's
    /// access log calls this on every request, without a `Logger`'s dictionary to build and sort.
    package func log(level: Logger.Level, message: String, sortedFields: [(key: String, value: Logger.Metadata.Value)])
    {
        guard level >= logLevel else { return }
        let fields = metadata.isEmpty ? sortedFields : Self.sorted(metadata.merging(sortedFields) { $1 })
        sink(line(level: level, message: message, sortedFields: fields, date: Date()))
    }

    /// The line for one event, newline included.
    package func line(level: Logger.Level, message: String, metadata: Logger.Metadata, date: Date) -> String {
        line(level: level, message: message, sortedFields: Self.sorted(metadata), date: date)
    }

    private static func sorted(_ metadata: Logger.Metadata) -> [(key: String, value: Logger.Metadata.Value)] {
        metadata.sorted { $0.key < $1.key }
    }

    /// The line for one event whose fields are in key order, newline included.
    private func line(
        level: Logger.Level, message: String, sortedFields: [(key: String, value: Logger.Metadata.Value)], date: Date
    ) -> String {
        let timestamp = JobJSON.rfc3339(date)
        switch format {
        case .text:
            var line = timestamp
            line.reserveCapacity(256)
            line += " "
            line += level.rawValue
            line += " "
            line += label
            line += ": "
            line += Self.quotedIfNeeded(message)
            for (key, value) in sortedFields {
                line += " "
                line += key
                line += "="
                line += Self.textValue(value)
            }
            line += "\n"
            return line
        case .json:
            let object: JSONLogValue = .object([
                ("timestamp", .string(timestamp)), ("level", .string(level.rawValue)), ("logger", .string(label)),
                ("message", .string(message)),
                ("metadata", .object(sortedFields.map { ($0.key, JSONLogValue($0.value)) })),
            ])
            return object.encoded + "\n"
        }
    }

    /// Writes the line to fd 2 with one `write(2)` (more only if the kernel takes part of it), unbuffered:
    /// lines up to 4 KiB (`PIPE_BUF`) from several threads never interleave, and none waits in a buffer.
    public static let standardError: @Sendable (String) -> Void = { line in
        var line = line
        line.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    private static func textValue(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): quotedIfNeeded(text)
        case .stringConvertible(let item): quotedIfNeeded(item.description)
        case .array, .dictionary: quotedIfNeeded(JSONLogValue(value).encoded)
        }
    }

    /// The text as is when it is one plain word; else in double quotes with `"`, `\` and controls escaped,
    /// so a client-chosen path can neither break a line nor fake a field.
    package static func quotedIfNeeded(_ text: String) -> String {
        // Byte by byte: every byte of a non-ASCII character is past 0x7F, so such text is quoted.
        let plain =
            !text.isEmpty
            && text.utf8.allSatisfy {
                $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "=")
                    && $0 != UInt8(ascii: "\\")
            }
        return plain ? text : JSONLogValue.string(text).encoded
    }
}
