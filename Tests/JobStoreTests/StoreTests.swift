import Digests
import Foundation
import JobStore
import MediaJobs
import TestSupport
import Testing

@Suite struct StoreTests {
    @Test func createsTheLayout() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        #expect(try scratch.listing() == ["jobs", "uploads"])
        #expect(try StoreFixtures.listing(store.jobsDirectory).isEmpty)
    }

    @Test func createPutsEverythingInPlace() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        let audio = try StoreFixtures.upload(Array("audio bytes".utf8), in: store)
        let video = try StoreFixtures.upload(Array("video bytes".utf8), in: store)
        var record = StoreFixtures.record(kind: .mux)
        record.inputs = [
            JobInput(name: "audio.aac", size: audio.size, sha256: audio.sha256),
            JobInput(name: "video.h264", size: video.size, sha256: video.sha256),
        ]
        try store.create(record, inputs: ["audio.aac": audio, "video.h264": video])

        #expect(try StoreFixtures.listing(store.jobsDirectory) == [record.id])
        #expect(try StoreFixtures.listing(store.jobDirectory(id: record.id)) == ["inputs", "job.json", "outputs"])
        #expect(
            try StoreFixtures.listing(store.jobDirectory(id: record.id) + "/inputs") == ["audio.aac", "video.h264"])
        #expect(try StoreFixtures.listing(store.outputDirectory(id: record.id)).isEmpty)
        #expect(try StoreFixtures.listing(store.uploadsDirectory).isEmpty)
        let moved = try SHA256Hasher.hexDigest(ofFileAt: store.inputPath(id: record.id, name: "audio.aac"))
        #expect(moved.sha256 == audio.sha256)

        let data = try Data(contentsOf: URL(fileURLWithPath: store.recordPath(id: record.id)))
        #expect(try JobJSON.decoder().decode(JobRecord.self, from: data) == record)
        #expect(try store.load(id: record.id) == record)
    }

    @Test func refusesBadInputNamesAndTakesTheUploads() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        for name in [".hidden", "../escape", "a/b", ""] {
            let file = try StoreFixtures.upload([1, 2, 3], in: store)
            let error = #expect(throws: StoreError.self) {
                try store.create(StoreFixtures.record(), inputs: [name: file])
            }
            #expect(error?.code == "invalid_file_name")
            #expect(!StoreFixtures.exists(file.path))
        }
        #expect(try StoreFixtures.listing(store.jobsDirectory).isEmpty)
        #expect(try StoreFixtures.listing(store.uploadsDirectory).isEmpty)
    }

    @Test func refusesADuplicateJob() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        let record = try StoreFixtures.storedJob(in: store)
        let file = try StoreFixtures.upload([1], in: store)
        let error = #expect(throws: StoreError.self) { try store.create(record, inputs: ["input": file]) }
        #expect(error?.code == "already_exists")
        #expect(try StoreFixtures.listing(store.jobsDirectory) == [record.id])
        #expect(try store.load(id: record.id) == record)
    }

    @Test func saveReplacesTheRecordAtomically() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        var record = try StoreFixtures.storedJob(in: store)
        record.state = .running
        record.attempts = 1
        record.startedAt = StoreFixtures.epoch.addingTimeInterval(2.5)
        record.progress = 0.5
        try store.save(record)

        #expect(try store.load(id: record.id) == record)
        #expect(try StoreFixtures.listing(store.jobDirectory(id: record.id)) == ["inputs", "job.json", "outputs"])
        let text = try String(contentsOfFile: store.recordPath(id: record.id), encoding: .utf8)
        #expect(text.contains("\n  \"state\" : \"running\""))
    }

    @Test func saveOfAMissingJobIsNotFound() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        let error = #expect(throws: StoreError.self) { try store.save(StoreFixtures.record()) }
        #expect(error?.code == "not_found")
        #expect(try StoreFixtures.listing(store.jobsDirectory).isEmpty)
    }

    @Test func loadOfAnUnknownOrInvalidIDIsNil() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        #expect(try store.load(id: JobStore.newID()) == nil)
        #expect(try store.load(id: "../../etc/passwd") == nil)
    }

    @Test func loadAllCleansUpAfterACrash() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        let first = try StoreFixtures.storedJob(in: store)
        let second = try StoreFixtures.storedJob(in: store)
        let fileManager = FileManager.default

        // A create cut short: a complete-looking staging directory.
        let staging = store.jobsDirectory + "/.new-x"
        try fileManager.createDirectory(atPath: staging + "/inputs", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: staging + "/job.json"))
        // A delete cut short.
        try fileManager.createDirectory(
            atPath: store.jobsDirectory + "/.deleted-y/outputs", withIntermediateDirectories: true)
        // A body that was still arriving.
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: store.uploadsDirectory + "/x.part"))
        // An output being written, and a save interrupted before its rename.
        let firstOutputs = store.outputDirectory(id: first.id)
        try Data([4]).write(to: URL(fileURLWithPath: firstOutputs + "/.output.mkv.partial"))
        try Data([5]).write(to: URL(fileURLWithPath: firstOutputs + "/audio.aac"))
        // A segment of a package (an output tree) being written in its folder.
        try fileManager.createDirectory(atPath: firstOutputs + "/240p", withIntermediateDirectories: true)
        try Data([7]).write(to: URL(fileURLWithPath: firstOutputs + "/240p/.seg_00001.m4s.partial-1-2"))
        try Data([8]).write(to: URL(fileURLWithPath: firstOutputs + "/240p/init.mp4"))
        try Data([6]).write(to: URL(fileURLWithPath: store.jobDirectory(id: second.id) + "/.job.json.abc.tmp"))

        let scan = try store.loadAll()
        #expect(scan.records == [first, second].sorted { $0.id < $1.id })
        #expect(scan.unreadable.isEmpty)
        #expect(scan.removed.count == 6)
        #expect(try StoreFixtures.listing(store.jobsDirectory) == [first.id, second.id].sorted())
        #expect(try StoreFixtures.listing(store.uploadsDirectory).isEmpty)
        #expect(try StoreFixtures.listing(firstOutputs) == ["240p", "audio.aac"])
        #expect(try StoreFixtures.listing(firstOutputs + "/240p") == ["init.mp4"])
        #expect(try StoreFixtures.listing(store.jobDirectory(id: second.id)) == ["inputs", "job.json", "outputs"])

        // Nothing left to clean the second time.
        #expect(try store.loadAll().removed.isEmpty)
    }

    @Test func anUnreadableRecordIsSkipped() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        let good = try StoreFixtures.storedJob(in: store)
        let bad = try StoreFixtures.storedJob(in: store)
        try Data("{\"id\": tru".utf8).write(to: URL(fileURLWithPath: store.recordPath(id: bad.id)))
        let empty = JobStore.newID()
        try FileManager.default.createDirectory(
            atPath: store.jobDirectory(id: empty), withIntermediateDirectories: true)

        let scan = try store.loadAll()
        #expect(scan.records == [good])
        #expect(Set(scan.unreadable.map(\.id)) == [bad.id, empty])
        #expect(scan.unreadable.allSatisfy { $0.error.code == "corrupt_record" })
        let error = #expect(throws: StoreError.self) { try store.load(id: bad.id) }
        #expect(error?.code == "corrupt_record")
        #expect(StoreFixtures.exists(store.recordPath(id: bad.id)))
    }

    /// A `job.json` edited or copied by hand so that it names another job: unreadable, since every save,
    /// delete and output path would otherwise go to a directory that is not its own.
    @Test func aRecordNamingAnotherJobIsUnreadable() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        let moved = try StoreFixtures.storedJob(in: store)
        let other = JobStore.newID()
        let text = try String(contentsOfFile: store.recordPath(id: moved.id), encoding: .utf8)
        try text.replacingOccurrences(of: moved.id, with: other).write(
            toFile: store.recordPath(id: moved.id), atomically: true, encoding: .utf8)

        let scan = try store.loadAll()
        #expect(scan.records.isEmpty)
        #expect(scan.unreadable.map(\.id) == [moved.id])
        let error = #expect(throws: StoreError.self) { try store.load(id: moved.id) }
        #expect(error?.code == "corrupt_record")
        #expect(error?.message.contains(other) == true)
    }

    @Test func deleteRemovesTheJob() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        let kept = try StoreFixtures.storedJob(in: store)
        let doomed = try StoreFixtures.storedJob(in: store)
        try Data([1]).write(to: URL(fileURLWithPath: store.outputPath(id: doomed.id, name: "output.mkv")))

        try store.delete(id: doomed.id)
        #expect(try StoreFixtures.listing(store.jobsDirectory) == [kept.id])
        #expect(try store.load(id: doomed.id) == nil)

        let again = #expect(throws: StoreError.self) { try store.delete(id: doomed.id) }
        #expect(again?.code == "not_found")
        let invalid = #expect(throws: StoreError.self) { try store.delete(id: "..") }
        #expect(invalid?.code == "invalid_id")
        #expect(try StoreFixtures.listing(store.jobsDirectory) == [kept.id])
    }

    @Test func idsAreRandomURLSafeAndValidated() {
        let ids = (0..<1000).map { _ in JobStore.newID() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy { $0.count == 22 && JobStore.isValidID($0) })

        let twentyOne = String(repeating: "a", count: 21)
        for bad in [
            "", "..", "a/b", twentyOne, twentyOne + "aa", twentyOne + "/", ".." + String(repeating: "a", count: 20),
            "../" + String(repeating: "a", count: 19), twentyOne + "=", twentyOne + "é", twentyOne + "+",
        ] {
            #expect(!JobStore.isValidID(bad), "\(bad)")
        }
        #expect(JobStore.isValidID("AZaz09_-" + String(repeating: "x", count: 14)))
    }

    @Test func fileNamesAreValidated() {
        for good in ["input", "output.mkv", "audio_1.aac", "a-b.c", String(repeating: "n", count: 100)] {
            #expect(JobStore.isValidFileName(good), "\(good)")
        }
        for bad in ["", ".", "..", ".hidden", "a/b", "a b", "ü.wav", String(repeating: "n", count: 101)] {
            #expect(!JobStore.isValidFileName(bad), "\(bad)")
        }
    }

    /// What a worker reports for an output it wrote, and the record's listing made from that report.
    @Test func describesFinishedOutputs() throws {
        let scratch = try Scratch("store")
        let store = try JobStore(root: scratch.path)
        let record = try StoreFixtures.storedJob(in: store)
        try Data("video".utf8).write(to: URL(fileURLWithPath: store.outputPath(id: record.id, name: "video.h264")))
        try Data("abc".utf8).write(to: URL(fileURLWithPath: store.outputPath(id: record.id, name: "audio.aac")))

        let directory = store.outputDirectory(id: record.id)
        let outputs = try ["audio.aac", "video.h264"].map {
            let file = try FileDigest(hashing: $0, in: directory)
            return JobOutput(
                file, contentType: $0.hasSuffix(".aac") ? "audio/aac" : "video/h264",
                url: "/jobs/\(record.id)/outputs/\(file.name)")
        }
        #expect(
            outputs[0]
                == JobOutput(
                    FileDigest(
                        name: "audio.aac", size: 3,
                        sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
                    contentType: "audio/aac", url: "/jobs/\(record.id)/outputs/audio.aac"))
        #expect(outputs[1].size == 5 && outputs[1].contentType == "video/h264")
    }

    @Test func reportsFreeSpace() throws {
        let scratch = try Scratch("store")
        #expect(try JobStore(root: scratch.path).freeBytes() > 0)
    }
}
