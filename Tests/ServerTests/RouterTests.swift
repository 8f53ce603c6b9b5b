import NIOHTTP1
import MediadHTTP
import Server
import Testing

@Suite struct RouterTests {
    static let router: Router<String> = {
        var router = Router<String>()
        router.add(.POST, "/jobs/{kind}", "create")
        router.add(.GET, "/jobs/{id}", "show")
        router.add(.DELETE, "/jobs/{id}", "delete")
        router.add(.GET, "/jobs/{id}/outputs/{name}", "download")
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

    @Test func answersHeadWithGetRoutes() {
        guard case .found(let handler, _) = Self.router.match(.HEAD, path: "/healthz") else {
            Issue.record("no match")
            return
        }
        #expect(handler == "health")
    }

    @Test func saysWhichMethodsAreAllowed() {
        guard case .methodNotAllowed(let allowed) = Self.router.match(.PUT, path: "/jobs/abc") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed.map(\.rawValue).sorted() == ["DELETE", "GET", "HEAD", "POST"])
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
