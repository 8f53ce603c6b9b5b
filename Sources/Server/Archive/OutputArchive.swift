import Foundation
import MediadHTTP
import NIOCore
import NIOPosix

/// The archive of one job's outputs, written to a response stream.
struct OutputArchive: Sendable {
    struct Entry: Sendable {
        let name: String
        let path: String
        let size: Int64
    }

    let entries: [Entry]
    let modified: Int64
    let threadPool: NIOThreadPool

    /// Bytes read from a file at a time.
    static let blockSize = 256 << 10

    /// Writes the archive; stops early when the connection ends or a file cannot be read as its record lists
    /// it. The body then ends inside an entry and without the two end blocks, which tar readers report as
    /// an unexpected end of the archive.
    func send(to writer: StreamWriter) async {
        do {
            for entry in entries {
                try await writer.write(
                    ByteBuffer(bytes: TarHeader(name: entry.name, size: entry.size, modified: modified).blocks))
                try await sendFile(entry, to: writer)
                let padding = TarHeader.padding(after: entry.size)
                if padding > 0 { try await writer.write(ByteBuffer(repeating: 0, count: padding)) }
            }
            try await writer.write(ByteBuffer(bytes: TarHeader.end))
        } catch {
            return
        }
    }

    private func sendFile(_ entry: Entry, to writer: StreamWriter) async throws {
        let descriptor = try await threadPool.runIfActive { () -> Int32 in
            let descriptor = open(entry.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { throw ArchiveReadError() }
            return descriptor
        }
        defer { close(descriptor) }
        var offset: Int64 = 0
        while offset < entry.size {
            let wanted = Int(min(Int64(Self.blockSize), entry.size - offset))
            let position = offset
            let block = try await threadPool.runIfActive { () -> ByteBuffer in
                var buffer = ByteBuffer()
                let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { pointer in
                    max(0, pread(descriptor, pointer.baseAddress, wanted, off_t(position)))
                }
                guard read == wanted else { throw ArchiveReadError() }
                return buffer
            }
            try await writer.write(block)
            offset += Int64(wanted)
        }
    }
}

/// An output could not be read as its record lists it (removed, or shorter): the archive stops there.
struct ArchiveReadError: Error {}
