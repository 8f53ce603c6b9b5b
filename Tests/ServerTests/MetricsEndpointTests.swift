import Foundation
import TestSupport
import Testing

/// `GET /metrics` on a real server after real jobs and requests: counters, histograms and gauges with the
/// right labels and values, parsed from the exposition text.
@Suite(.serialized) struct MetricsEndpointTests {
    @Test func countsRequestsJobsAndBytes() throws {
        let scratch = try Scratch("metrics")
        let server = try ServerProcess()
        let fixture = try Fixtures.h264AacMP4()
        let fixtureSize = try #require(try FileManager.default.attributesOfItem(atPath: fixture)[.size] as? Int)
        let cut = try scratch.write(
            "cut.mp4", [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture)).prefix(40_000)))
        var ids: [String] = []
        for _ in 0..<2 {
            let job = try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", fixture]).json
            #expect(job["state"] as? String == "succeeded")
            ids.append(try #require(job["id"] as? String))
        }
        let failed = try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", cut]).json
        #expect(failed["state"] as? String == "failed")
        for id in ids + [ids[0]] { #expect(try Curl.run(server.url("/jobs/\(id)")).status == 200) }
        #expect(try Curl.run(server.url("/no/such/route")).status == 404)
        let download = try Curl.run(server.url("/jobs/\(ids[0])/output"))
        #expect(download.status == 200)

        let reply = try Curl.run(server.url("/metrics"))
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let metrics = try Exposition(reply.text)

        #expect(metrics.value("mediad_jobs_total", ["kind": "remux", "state": "succeeded"]) == 2)
        #expect(metrics.value("mediad_jobs_total", ["kind": "remux", "state": "failed"]) == 1)
        #expect(metrics.types["mediad_jobs_total"] == "counter")
        #expect(metrics.value("mediad_job_duration_seconds_count", ["kind": "remux"]) == 3)
        #expect(metrics.types["mediad_job_duration_seconds"] == "histogram")

        let show = ["method": "GET", "route": "/jobs/{id}", "status": "200"]
        #expect(metrics.value("mediad_http_requests_total", show) == 3)
        #expect(
            metrics.value("mediad_http_requests_total", ["method": "GET", "route": "unmatched", "status": "404"]) == 1)
        let submitted = metrics.samples(
            "mediad_http_requests_total", matching: ["method": "PUT", "route": "/jobs/{kind}"])
        #expect(submitted.reduce(0) { $0 + $1.value } == 3)
        #expect(
            metrics.samples("mediad_http_requests_total").allSatisfy { !$0.labels["route"]!.contains(ids[0]) },
            "a raw path leaked into a label")

        // The latency histogram of GET /jobs/{id}: cumulative buckets ending at +Inf = count = 3.
        let latency = ["method": "GET", "route": "/jobs/{id}"]
        #expect(metrics.value("mediad_http_request_duration_seconds_count", latency) == 3)
        let buckets = metrics.samples("mediad_http_request_duration_seconds_bucket", matching: latency)
            .sorted { (Double($0.labels["le"]!) ?? .infinity) < (Double($1.labels["le"]!) ?? .infinity) }
        #expect(buckets.count > 5)
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.value <= $1.value })
        #expect(buckets.last?.labels["le"] == "+Inf" && buckets.last?.value == 3)

        #expect(metrics.value("mediad_uploaded_bytes_total") == Double(2 * fixtureSize + 40_000))
        #expect((metrics.value("mediad_served_bytes_total") ?? 0) >= Double(download.body.count))
        #expect(metrics.value("mediad_jobs_queued") == 0)
        #expect(metrics.value("mediad_jobs_running") == 0)
        #expect(metrics.samples("mediad_worker_crashes_total").allSatisfy { $0.value == 0 })
    }

    @Test func countsWorkerCrashesAndRunningJobs() throws {
        let scratch = try Scratch("metrics-crash")
        let server = try ServerProcess(["--workers", "1"])
        let (victim, worker) = try IsolationTests.heldWorker(
            server, ["-T", try IsolationTests.noisePCM(scratch, 1800)])
        let queued = try #require(
            try Curl.run(
                server.url("/jobs/encode?format=m4a"),
                ["-T", try IsolationTests.noisePCM(scratch, 1, name: "short.pcm")]
            )
            .json["id"] as? String)
        let busy = try Exposition(try Curl.run(server.url("/metrics")).text)
        #expect(busy.value("mediad_jobs_running") == 1)
        #expect(busy.value("mediad_jobs_queued") == 1)

        #expect(kill(worker, SIGKILL) == 0)
        #expect(try Curl.run(server.url("/jobs/\(victim)?wait=30")).json["state"] as? String == "failed")
        #expect(try Curl.run(server.url("/jobs/\(queued)?wait=60")).json["state"] as? String == "succeeded")
        let after = try Exposition(try Curl.run(server.url("/metrics")).text)
        #expect(after.value("mediad_worker_crashes_total", ["kind": "encode"]) == 1)
        #expect(after.value("mediad_jobs_total", ["kind": "encode", "state": "failed"]) == 1)
        #expect(after.value("mediad_jobs_total", ["kind": "encode", "state": "succeeded"]) == 1)
        #expect(after.value("mediad_jobs_running") == 0)
    }

    @Test func metricsNeedATokenWhenTheServerHasTokens() throws {
        let scratch = try Scratch("metrics-auth")
        let tokens = try scratch.write("tokens", Array("ops:ops-token-0123456789\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens])
        #expect(try Curl.run(server.url("/metrics")).status == 401)
        #expect(try Curl.run(server.url("/healthz")).status == 200)
        let reply = try Curl.run(server.url("/metrics"), ["-H", "Authorization: Bearer ops-token-0123456789"])
        #expect(reply.status == 200)
        let metrics = try Exposition(reply.text)
        #expect(
            metrics.value("mediad_http_requests_total", ["method": "GET", "route": "/metrics", "status": "401"]) == 1)
    }
}
