import NIOHTTP1
import MediadHTTP
import Server
import Testing

@Suite struct RouterTests {
    static let router: Router<String> = {
        var router = Router<String>()
        let kinds: Set = ["remux", "encode"]
        router.add(Route(.POST, "/jobs/{kind}", values: ["kind": kinds.contains]), "create")
        router.add(Route(.GET, "/jobs/{id}", values: ["id": { $0.count == 3 }]), "show")
        router.add(Route(.DELETE, "/jobs/{id}", values: ["id": { $0.count == 3 }]), "delete")
        router.add(.GET, "/jobs/{id}/outputs/{name...}", "download")
        router.add(.GET, "/jobs/{id}/outputs.tar", "archive")
        router.add(.GET, "/healthz", "health")
        return router
    }()

    @Test func matchesPatternsWithParameters() {
        guard case .found(let handler, let parameters) = Self.router.match(.GET, path: "/jobs/abc/outputs/output.mp4")
        else {
            Issue.record("no match")
            return
        }
        #expect(handler == "download")
        #expect(parameters == ["id": "abc", "name": "output.mp4"])
    }

    /// A rest parameter takes one segment or more, joined with `/`, and nothing when none is left.
    @Test func restParameterTakesTheRestOfThePath() {
        guard
            case .found(let handler, let parameters) = Self.router.match(.GET, path: "/jobs/abc/outputs/720p/init.mp4")
        else {
            Issue.record("no match")
            return
        }
        #expect(handler == "download")
        #expect(parameters == ["id": "abc", "name": "720p/init.mp4"])
        guard case .found("archive", _) = Self.router.match(.GET, path: "/jobs/abc/outputs.tar") else {
            Issue.record("no match for the archive")
            return
        }
        guard case .notFound = Self.router.match(.GET, path: "/jobs/abc/outputs") else {
            Issue.record("an empty rest matched")
            return
        }
        #expect(Route(.GET, "/jobs/{id}/outputs/{name...}").template == "/jobs/{id}/outputs/{name}")
    }

    @Test func answersHeadWithGetRoutes() {
        guard case .found(let handler, _) = Self.router.match(.HEAD, path: "/healthz") else {
            Issue.record("no match")
            return
        }
        #expect(handler == "health")
    }

    /// `Allow` names the methods whose routes take the path's values, `HEAD` beside `GET`: a job kind takes
    /// `POST`, a job id (here three characters) `GET` and `DELETE`.
    @Test(arguments: [
        ("/jobs/abc", ["DELETE", "GET", "HEAD"]), ("/jobs/remux", ["POST"]), ("/healthz", ["GET", "HEAD"]),
    ])
    func saysWhichMethodsAreAllowed(path: String, methods: [String]) {
        guard case .methodNotAllowed(let allowed) = Self.router.match(.PUT, path: path) else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed.map(\.rawValue).sorted() == methods)
    }

    /// A value no route takes reaches the route of the request's method with the path's shape (whose
    /// handler answers 404 itself); without one it is 404.
    @Test func routesValuesNoRouteTakesToTheHandler() {
        guard case .found(let handler, let parameters) = Self.router.match(.POST, path: "/jobs/transcode") else {
            Issue.record("no match")
            return
        }
        #expect(handler == "create" && parameters == ["kind": "transcode"])
        guard case .notFound = Self.router.match(.PUT, path: "/jobs/transcode") else {
            Issue.record("PUT /jobs/transcode matched")
            return
        }
    }

    @Test func rejectsUnknownPaths() {
        for path in ["/", "/jobs", "/jobs/a/b", "/jobs/a/outputs", "/healthz/x", "//healthz"] {
            guard case .notFound = Self.router.match(.GET, path: path) else {
                Issue.record("\(path) matched")
                continue
            }
        }
    }
}
