import Foundation
import JobStore
import MediaCore
import MediadClient
import MediadRuntime
import ObjectStorage
import TestSupport
import Testing

/// `JobObjects`, the outputs of jobs in the bucket, against a real S3 server (SeaweedFS) with boto3 as the
/// oracle: a large output goes up as a multipart upload and a small one in one PUT, both whole, under the
/// keys of the run's attempt; an output that cannot go up aborts its multipart upload and removes what its
/// run put before it, never another run's outputs.
@Suite struct JobObjectsTests {
    static func objects(_ s3: SeaweedFS, prefix: String) throws -> JobObjects {
        let location = try S3Location(objects: "s3://mediad/\(prefix)", endpoint: s3.endpoint, pathStyle: true)
        let credentials = SigningCredentials(
            accessKeyID: SeaweedFS.accessKeyID, secretAccessKey: SeaweedFS.secretAccessKey)
        return JobObjects(
            settings: ObjectSettings(location: location),
            client: S3Client(
                location: location, credentials: credentials, http: try HTTPClient(),
                retry: S3RetryPolicy(attempts: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))))
    }

    static func write(_ scratch: Scratch, _ name: String, count: Int, seed: UInt64) throws -> FileDigest {
        var generator = SeededBytes(seed: seed)
        try scratch.write(name, generator.next(count: count))
        return try FileDigest(hashing: name, in: scratch.path)
    }

    @Test func partSizesStayBetween8And64MiBUnlessTenThousandPartsNeedMore() {
        #expect(MultipartPut.partSize(for: 20 << 20) == 8 << 20)
        #expect(MultipartPut.partSize(for: 2 << 30) == 21 << 20)
        #expect(MultipartPut.partSize(for: 100 << 30) == 64 << 20)
        let huge: Int64 = 1 << 40
        #expect(MultipartPut.partSize(for: huge) * 10_000 >= huge)
    }

    @Test func largeAndSmallOutputsGoUpWholeAndAFailureLeavesNothing() async throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("job-objects")
        let objects = try Self.objects(s3, prefix: "up")
        // 20 MiB and a bit: three parts of 8 MiB (the last shorter), two at a time.
        let large = try Self.write(scratch, "video.mkv", count: (20 << 20) + 12_345, seed: 1)
        let small = try Self.write(scratch, "thumb.jpg", count: 5000, seed: 2)
        try await objects.upload([large, small], ofJob: "job1", attempt: 1, from: scratch.path)
        for file in [large, small] {
            let read = try s3.read("up/jobs/job1/runs/1/outputs/\(file.name)")
            #expect(read["sha256"] as? String == file.sha256, "\(file.name)")
            #expect(read["size"] as? Int == Int(file.size), "\(file.name)")
        }
        #expect(try s3.list("up/jobs/job1/").uploads.isEmpty)
        try await objects.removeJob("job1")
        #expect(try s3.list("up/jobs/job1/").objects.isEmpty)

        // Run 2 of job2, after run 1 stored its outputs: the second output's file is gone, so its multipart
        // upload is aborted and run 2's first output removed; run 1's outputs stay as they were.
        try await objects.upload([small], ofJob: "job2", attempt: 1, from: scratch.path)
        let missing = FileDigest(name: "gone.mkv", size: 30 << 20, sha256: large.sha256)
        let error = await #expect(throws: MediaError.self) {
            try await objects.upload([small, missing], ofJob: "job2", attempt: 2, from: scratch.path)
        }
        #expect(error?.code == .storageUnavailable)
        let left = try s3.list("up/jobs/job2/")
        #expect(left.objects == ["up/jobs/job2/runs/1/outputs/thumb.jpg"] && left.uploads.isEmpty, "\(left)")
        #expect(try s3.read("up/jobs/job2/runs/1/outputs/thumb.jpg")["sha256"] as? String == small.sha256)
    }

    /// The store killed while a job's outputs go up (an upload of them already started): the put fails
    /// `storage_unavailable`, the outputs' removal waits in `leftovers`, and once the store is back on its
    /// ports and data, `removeLeftovers` aborts the upload and leaves the outputs' prefix empty.
    @Test func whatAFailedPutCouldNotRemoveIsRemovedOnceTheStoreIsBack() async throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("job-objects-leftovers")
        let objects = try Self.objects(s3, prefix: "left")
        let output = try Self.write(scratch, "video.mkv", count: 5000, seed: 3)
        _ = try await objects.client.createMultipartUpload("jobs/job3/runs/1/outputs/video.mkv")
        s3.stop()
        let error = await #expect(throws: MediaError.self) {
            try await objects.upload([output], ofJob: "job3", attempt: 1, from: scratch.path)
        }
        #expect(error?.code == .storageUnavailable)
        #expect(objects.leftovers.pending == [.prefix("jobs/job3/runs/1/outputs/")])
        try s3.restart()
        #expect(await objects.removeLeftovers() == 1)
        #expect(objects.leftovers.pending.isEmpty)
        let left = try s3.list("left/jobs/job3/")
        #expect(left.objects.isEmpty && left.uploads.isEmpty, "\(left)")
    }

    /// The sweep aborts the uploads under `jobs/` started longer ago than its age, and no other.
    @Test func theSweepAbortsOnlyUploadsUnderJobsOlderThanItsAge() async throws {
        let s3 = try SeaweedFS()
        let objects = try Self.objects(s3, prefix: "swept")
        _ = try await objects.client.createMultipartUpload("jobs/job4/inputs/input")
        let other = try await objects.client.createMultipartUpload("elsewhere/file")
        #expect(try await objects.sweepAbandonedUploads(olderThan: 3600) == 0)
        #expect(try await objects.sweepAbandonedUploads(olderThan: 3600, now: Date().addingTimeInterval(7200)) == 1)
        let left = try await objects.client.listMultipartUploads()
        #expect(left.map(\.uploadID) == [other], "\(left)")
    }
}
