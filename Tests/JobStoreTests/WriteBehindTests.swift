import DurableIO
import Foundation
import TestSupport
import Testing

/// `WriteBehind`, which job outputs are written through (dropping what is on the disk) and uploads too
/// (keeping it cached for the job that reads them next).
@Suite struct WriteBehindTests {
    static let mebibyte = 1 << 20

    /// A 160 MiB file written a mebibyte at a time: with `dropBehind`, only the last 64 MiB stay in the
    /// page cache (a muxer may still amend them); without, all of it does. The writer syncs each
    /// mebibyte, so every range it advises away is on the disk by then and the count does not depend on
    /// the disk's pace. In a directory under `.build`, on the clone's disk: a tmpfs keeps every page.
    @Test(arguments: [true, false]) func keepsOnlyTheTailCachedWhenDroppingBehind(dropBehind: Bool) throws {
        let scratch = try Scratch("write-behind", in: FileManager.default.currentDirectoryPath + "/.build")
        let path = scratch.file("output")
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        var writeBehind = WriteBehind(fd: fd, dropBehind: dropBehind)
        let block = [UInt8](repeating: 0x5a, count: Self.mebibyte)
        var size: Int64 = 0
        for _ in 0..<160 {
            try block.withUnsafeBytes { try DurableFile.writeAll(fd, $0, path: path) }
            size += Int64(Self.mebibyte)
            #expect(fdatasync(fd) == 0)
            writeBehind.written(upTo: size)
        }
        let cached = try Self.cachedMebibytes(fd, size: Int(size))
        if dropBehind {
            #expect(cached <= 64 + 8, "\(cached) MiB of 160 cached")
        } else {
            #expect(cached >= 150, "\(cached) MiB of 160 cached")
        }
    }

    /// How many mebibytes of the file's first `size` bytes are in the page cache (`mincore`).
    static func cachedMebibytes(_ fd: Int32, size: Int) throws -> Int {
        let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0)
        try #require(mapping != MAP_FAILED)
        defer { munmap(mapping, size) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var residency = [UInt8](repeating: 0, count: (size + pageSize - 1) / pageSize)
        try #require(mincore(mapping, size, &residency) == 0)
        return residency.reduce(0) { $0 + Int($1 & 1) } * pageSize / mebibyte
    }
}
