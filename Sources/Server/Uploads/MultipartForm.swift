import Foundation
import JobStore
import MediadHTTP
import MultipartKit
import NIOCore
import NIOPosix

/// A `multipart/form-data` body parsed as it streams in (vapor/multipart-kit's parser): file parts go
/// to upload files block by block, small text fields are kept as option values.
///
/// A part's headers are bounded like a request head: at most `maxPartHeaderBytes` between the end of one
/// part's body and the start of the next (boundary and headers), and `maxPartHeaders` header lines; past
/// either the request gets 431 at once. The parser is fed at most `sliceBytes` at a time, so it never
/// holds more than a slice past the limit (it copies a header value it is building on each call, which
/// costs the square of the value's length when one call carries a huge one).
final class MultipartForm {
    static let maxFields = 32
    static let maxFieldBytes = 8 * 1024
    static let maxPartHeaderBytes = 16 * 1024
    static let maxPartHeaders = 32
    static let sliceBytes = 4 * 1024

    private enum Event {
        case header(String, String)
        case body(ByteBuffer)
        case partComplete
    }

    private let parser: MultipartParser
    private var screen: PartHeaderNameScreen
    private let fileParts: [String]
    private let store: JobStore
    private let threadPool: NIOThreadPool
    private var events: [Event] = []
    private var headers: [String: String] = [:]
    private var currentFile: (name: String, filename: String?, writer: BlockWriter<UploadFile>)?
    private var currentField: ByteBuffer?
    private var files: [String: UploadReceiver.Part] = [:]
    private var fields: [String: String] = [:]
    private var sawEnd = false
    /// Bytes fed to the parser since the last part body bytes or part end: boundary and part headers.
    private var headerBytes = 0
    /// Header lines of the part being read.
    private var headerCount = 0

    init(boundary: String, fileParts: [String], store: JobStore, threadPool: NIOThreadPool) {
        parser = MultipartParser(boundary: boundary)
        screen = PartHeaderNameScreen(boundary: boundary)
        self.fileParts = fileParts
        self.store = store
        self.threadPool = threadPool
        parser.onHeader = { [unowned self] name, value in events.append(.header(name, value)) }
        parser.onBody = { [unowned self] buffer in events.append(.body(buffer)) }
        parser.onPartComplete = { [unowned self] in events.append(.partComplete) }
    }

    func consume(_ chunk: ByteBuffer) async throws {
        var chunk = chunk
        while let slice = chunk.readSlice(length: min(chunk.readableBytes, Self.sliceBytes)), slice.readableBytes > 0 {
            try screen.check(slice)
            do {
                try parser.execute(slice)
            } catch {
                throw ServiceError.invalidRequest("the multipart body is malformed: \(error)")
            }
            try checkHeaderSize(afterFeeding: slice.readableBytes)
            let batch = events
            events.removeAll(keepingCapacity: true)
            for event in batch { try await handle(event) }
        }
    }

    /// Counts what the last slice added to part headers: a slice that produced body bytes or ended a part
    /// starts the count again.
    private func checkHeaderSize(afterFeeding count: Int) throws {
        var sawBody = false
        for event in events {
            switch event {
            case .header: headerCount += 1
            case .body: sawBody = true
            case .partComplete:
                sawBody = true
                headerCount = 0
            }
        }
        headerBytes = sawBody ? 0 : headerBytes + count
        guard headerBytes <= Self.maxPartHeaderBytes, headerCount <= Self.maxPartHeaders else {
            throw ServiceError(
                .requestHeaderFieldsTooLarge, "headers_too_large",
                "a multipart part's headers are over \(Self.maxPartHeaderBytes) bytes or \(Self.maxPartHeaders) lines")
        }
    }

    func finish() async throws -> (files: [String: UploadReceiver.Part], fields: [String: String]) {
        guard currentFile == nil, currentField == nil, sawEnd || !files.isEmpty || !fields.isEmpty else {
            throw ServiceError.invalidRequest("the multipart body ends inside a part")
        }
        return (files, fields)
    }

    func discard() async {
        await currentFile?.writer.discard()
        currentFile = nil
        for part in files.values {
            let path = part.file.path
            await threadPool.removeUpload(at: path)
        }
        files.removeAll()
    }

    private func handle(_ event: Event) async throws {
        switch event {
        case .header(let name, let value):
            headers[name.lowercased()] = value
        case .body(let buffer):
            try await startPartIfNeeded()
            if let file = currentFile {
                try await file.writer.append(buffer)
            } else {
                var buffer = buffer
                currentField?.writeBuffer(&buffer)
                if (currentField?.readableBytes ?? 0) > Self.maxFieldBytes {
                    throw ServiceError.invalidRequest("a form field is over \(Self.maxFieldBytes) bytes")
                }
            }
        case .partComplete:
            try await startPartIfNeeded()
            try await completePart()
            sawEnd = true
        }
    }

    /// Decides, at a part's first body bytes, whether it is a file or a field.
    private func startPartIfNeeded() async throws {
        guard currentFile == nil, currentField == nil else { return }
        let disposition = try ContentDisposition(headers["content-disposition"] ?? "")
        guard let name = disposition.name else {
            throw ServiceError.invalidRequest("a multipart part has no Content-Disposition name")
        }
        if fileParts.contains(name) {
            guard files[name] == nil else { throw ServiceError.invalidRequest("part '\(name)' is sent twice") }
            currentFile = (name, disposition.filename, try await BlockWriter(store: store, threadPool: threadPool))
        } else if disposition.filename != nil {
            throw ServiceError(
                .badRequest, "unexpected_part",
                "file part '\(name)' is not taken here; send the input as \(fileParts.map { "'\($0)'" }.joined(separator: " or "))"
            )
        } else {
            guard fields[name] == nil else { throw ServiceError.invalidRequest("field '\(name)' is sent twice") }
            guard fields.count < Self.maxFields else { throw ServiceError.invalidRequest("too many form fields") }
            currentField = ByteBufferAllocator().buffer(capacity: 64)
            fields[name] = ""
        }
    }

    private func completePart() async throws {
        if let file = currentFile {
            currentFile = nil
            files[file.name] = UploadReceiver.Part(file: try await file.writer.finish(), filename: file.filename)
        } else if var field = currentField, let name = try ContentDisposition(headers["content-disposition"] ?? "").name
        {
            currentField = nil
            guard let value = field.readString(length: field.readableBytes) else {
                throw ServiceError.invalidRequest("field '\(name)' is not UTF-8 text")
            }
            fields[name] = value
        }
        headers.removeAll()
    }
}
