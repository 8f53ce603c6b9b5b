import Foundation
import JobStore
import MediadHTTP
import NIOCore
import NIOHTTP1
import NIOPosix

/// A `multipart/form-data` body parsed as it streams in (`MultipartScanner`): file parts go to upload
/// files block by block (and, with `--objects`, into the bucket as they arrive), small text fields are
/// kept as option values. Objects of parts received before a failure are removed with the job's objects
/// by the submission.
final class MultipartForm {
    static let maxFields = 32
    static let maxFieldBytes = 8 * 1024

    private var scanner: MultipartScanner
    private let fileParts: [String]
    private let store: JobStore
    private let threadPool: NIOThreadPool
    private var events: [MultipartScanner.Event] = []
    private var headers: [String: String] = [:]
    private var currentFile: (name: String, filename: String?, writer: BlockWriter<UploadFile>)?
    private var currentField: ByteBuffer?
    private var files: [String: UploadReceiver.Part] = [:]
    private var fields: [String: String] = [:]

    /// With `--objects`, where file parts go as they arrive.
    private let destination: InputDestination?

    init(
        boundary: String, fileParts: [String], store: JobStore, threadPool: NIOThreadPool,
        destination: InputDestination? = nil
    ) {
        scanner = MultipartScanner(boundary: boundary)
        self.destination = destination
        self.fileParts = fileParts
        self.store = store
        self.threadPool = threadPool
    }

    func consume(_ chunk: ByteBuffer) async throws {
        events.removeAll(keepingCapacity: true)
        try scanner.scan(chunk, into: &events)
        for event in events { try await handle(event) }
    }

    func finish() async throws -> (files: [String: UploadReceiver.Part], fields: [String: String]) {
        guard currentFile == nil, currentField == nil, scanner.isClosed || !files.isEmpty || !fields.isEmpty else {
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

    private func handle(_ event: MultipartScanner.Event) async throws {
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
            let destination = destination
            let writer = try await BlockWriter(
                store: store, threadPool: threadPool,
                object: destination.map { destination in { destination.put(part: name, path: $0) } })
            currentFile = (name, disposition.filename, writer)
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
            files[file.name] = UploadReceiver.Part(
                file: try await file.writer.finish(), filename: file.filename, inBucket: file.writer.object != nil)
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
