import Foundation
import MediadFoundation

/// The filesystem store of jobs: one directory per job under `--data-dir`, and no database. The directory
/// is the truth; the server rebuilds its in-memory index from `loadAll()` when it starts.
///
/// ```
/// <root>/jobs/<id>/job.json          the record, replaced atomically on every save
/// <root>/jobs/<id>/inputs/<name>     uploaded inputs
/// <root>/jobs/<id>/outputs/<name>    outputs, under their final name only once complete (a name may
///                                    be a path in folders: `720p/init.mp4`, see `isValidOutputName`)
/// <root>/jobs/<id>/job.log           the engine's log
/// <root>/jobs/<id>/lease.<n>         shared store only: the replica running the job (see `Lease`)
/// <root>/jobs/<id>/cancel            shared store only: a cancel request for the replica running it
/// <root>/jobs/<id>/runs              shared store only: one line per run start and end
/// <root>/uploads/<random>.part       request bodies still arriving
/// <root>/resumable/<id>/…          tus uploads (see `JobStore+Resumable`)
/// <root>/serve.lock                  locked by every server using the store (see `StoreLock`)
/// ```
///
/// Every change is ordered so that a crash at any point leaves either the old state or the new one, plus
/// hidden leftovers (`jobs/.new-*`, `jobs/.deleted-*`, `uploads/*`, dot-files) that `loadAll()` removes.
///
/// All methods do synchronous, blocking file I/O by design: the server calls them on a thread pool, never
/// on an event loop. The store holds only its (immutable) paths, so it is freely shareable; keeping two
/// writers off the same job is the caller's business (several servers on one store use leases for it).
public final class JobStore: Sendable {
    /// The data directory.
    public let root: String
    /// `<root>/jobs`.
    public let jobsDirectory: String
    /// `<root>/uploads`.
    public let uploadsDirectory: String
    /// The free space uploads and outputs leave on the store's disk.
    public let watermark: DiskWatermark

    static let stagingPrefix = ".new-"
    static let deletedPrefix = ".deleted-"

    /// Opens the store at `root`, creating it and its `jobs/` and `uploads/` directories when missing.
    /// Uploads stop before the disk has less than `minimumFreeBytes` free (0: no reserve).
    public init(root: String, minimumFreeBytes: Int64 = 0) throws {
        self.root = root
        jobsDirectory = root + "/jobs"
        uploadsDirectory = root + "/uploads"
        watermark = DiskWatermark(path: root, minimumFreeBytes: minimumFreeBytes)
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw StoreError(code: .ioError, message: "cannot create \(root): \(error.localizedDescription)")
        }
        try FileIO.makeDirectory(jobsDirectory, mayExist: true)
        try FileIO.makeDirectory(uploadsDirectory, mayExist: true)
    }

    // MARK: Names

    /// A new job id: 128 random bits as URL-safe base64 without padding (22 characters, `RandomID`).
    public static func newID() -> String { RandomID.generate() }

    /// True for exactly 22 characters of `A-Z a-z 0-9 _ -`: the shape of `newID()`. The server checks ids
    /// from URLs with it, so `..`, slashes and the like never reach a path.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        return bytes.count == 22
            && bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// True for 1–100 characters of `A-Z a-z 0-9 . _ -` not starting with `.`: a name that stays inside
    /// its directory and is never mistaken for a hidden temporary file.
    public static func isValidFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1...100).contains(bytes.count) && bytes[0] != UInt8(ascii: ".")
            && bytes.allSatisfy {
                isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
    }

    /// The longest output name and the most folders one may be in.
    static let outputNameLimit = 255
    static let outputDepthLimit = 8

    /// True for an output name that stays inside its job's `outputs/` directory: `master.m3u8` or a path
    /// such as `720p/seg_00001.m4s`, `/`-separated file names that each pass `isValidFileName` (so no
    /// empty, `.` or `..` segment, no hidden file, no backslash, NUL or other byte outside
    /// `A-Z a-z 0-9 . _ -`), neither starting nor ending with `/`, 255 bytes and 8 folders at most.
    public static func isValidOutputName(_ name: String) -> Bool {
        let segments = name.split(separator: "/", omittingEmptySubsequences: false)
        return name.utf8.count <= outputNameLimit && segments.count <= outputDepthLimit + 1
            && segments.allSatisfy { isValidFileName(String($0)) }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    // MARK: Paths (ids and names must be valid: see `isValidID`, `isValidFileName`, `isValidOutputName`)

    public func jobDirectory(id: String) -> String { jobsDirectory + "/" + id }

    public func recordPath(id: String) -> String { jobDirectory(id: id) + "/job.json" }

    public func inputPath(id: String, name: String) -> String { jobDirectory(id: id) + "/inputs/" + name }

    public func outputDirectory(id: String) -> String { jobDirectory(id: id) + "/outputs" }

    public func outputPath(id: String, name: String) -> String { outputDirectory(id: id) + "/" + name }

    public func logPath(id: String) -> String { jobDirectory(id: id) + "/job.log" }

    // MARK: Space

    /// Bytes available to this process on the file system holding the store; 0 when that cannot be told,
    /// so a caller checking for room refuses work rather than assuming plenty.
    public func freeBytes() -> Int64 { watermark.freeBytes() }

    static func requireValidID(_ id: String) throws {
        guard isValidID(id) else { throw StoreError.invalidID(id) }
    }
}
