import CoreMetrics
import Metrics
import MediadHTTP
import MediadRuntime
import Prometheus

/// The service's metrics, recorded through swift-metrics and exposed by swift-prometheus at `/metrics`.
///
/// Labels stay bounded: requests are labelled with the route's template (`/jobs/{id}`, or `unmatched`),
/// never the raw path; jobs with their kind and state. Until `bootstrap()` runs (tests of parts, the
/// `mediad worker` child) swift-metrics drops everything.
enum ServiceMetrics {
    /// Metric names, as they appear in the exposition.
    enum Name {
        static let requests = HTTPMetrics.requests
        static let requestDuration = HTTPMetrics.requestDuration
        static let uploadedBytes = HTTPMetrics.uploadedBytes
        static let servedBytes = HTTPMetrics.servedBytes
        static let jobs = JobMetrics.jobs
        static let jobDuration = JobMetrics.jobDuration
        static let queued = "mediad_jobs_queued"
        static let running = "mediad_jobs_running"
        static let workerCrashes = JobMetrics.workerCrashes
    }

    /// The route label of a request that matched no route.
    static let unmatchedRoute = HTTPMetrics.unmatchedRoute

    /// The registry `/metrics` renders.
    static var registry: PrometheusCollectorRegistry { PrometheusMetricsFactory.defaultRegistry }

    /// Makes swift-metrics record into the Prometheus registry. Call once per process (the server's).
    static func bootstrap() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Name.requestDuration] = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5), .seconds(30),
            .seconds(120),
        ]
        factory.durationHistogramBuckets[Name.jobDuration] = [
            .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(15), .seconds(60),
            .seconds(300), .seconds(900), .seconds(3600), .seconds(6 * 3600),
        ]
        MetricsSystem.bootstrap(factory)
        setLoad(queued: 0, running: 0)
    }

    /// The queue depth and the jobs running now, sampled when `/metrics` is read.
    static func setLoad(queued: Int, running: Int) {
        Gauge(label: Name.queued).record(queued)
        Gauge(label: Name.running).record(running)
    }

    /// The exposition in Prometheus text format 0.0.4.
    static func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
