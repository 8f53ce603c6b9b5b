import MediadHTTP
import NIOCore
import NIOHTTP1

/// The web console: a page at `GET /` and its files at `GET /console/{asset}`, plain HTML, CSS and
/// JavaScript modules kept in `ConsoleAssets/` and embedded in the binary by SwiftPM
/// (`resources: [.embedInCode("ConsoleAssets")]`, which generates `PackageResources`), so nothing is
/// deployed beside it.
///
/// Everything is served with a Content-Security-Policy that allows this origin alone (scripts, styles,
/// fetches; media also from `blob:` URLs, which previews use when a token is needed) and no framing.
enum ConsoleAssets {
    /// The console's files by the name they are served under.
    private static let files: [String: (type: String, bytes: [UInt8])] = [
        "app.js": (javaScript, PackageResources.app_js),
        "api.js": (javaScript, PackageResources.api_js),
        "format.js": (javaScript, PackageResources.format_js),
        "job.js": (javaScript, PackageResources.job_js),
        "jobs.js": (javaScript, PackageResources.jobs_js),
        "upload.js": (javaScript, PackageResources.upload_js),
        "resumable.js": (javaScript, PackageResources.resumable_js),
        "console.css": ("text/css; charset=utf-8", PackageResources.console_css),
    ]
    private static let javaScript = "text/javascript; charset=utf-8"

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' blob: data:; "
        + "media-src 'self' blob:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

    /// Whether `GET /` should answer with the page: the client accepts HTML (a browser). Clients that ask
    /// for JSON, or for anything (`curl`'s `*/*`), get the JSON index as before.
    static func wantsPage(_ request: Request) -> Bool {
        request.head.headers["accept"].contains { $0.lowercased().contains("text/html") }
    }

    /// The page itself; it needs no token (it asks for one when the API does).
    static var page: Response {
        served("text/html; charset=utf-8", PackageResources.index_html).varying
    }

    /// `GET /console/{asset}`, or 404 for a name that is not one of the console's files.
    static func asset(_ name: String) throws -> Response {
        guard let file = files[name] else { throw ServiceError.notFound("no console file \(name)") }
        return served(file.type, file.bytes)
    }

    private static func served(_ type: String, _ bytes: [UInt8]) -> Response {
        Response(
            status: .ok,
            headers: [
                "content-type": type, "content-security-policy": contentSecurityPolicy,
                "x-content-type-options": "nosniff", "referrer-policy": "no-referrer",
            ],
            body: .bytes(ByteBuffer(bytes: bytes)))
    }
}

extension Response {
    /// The response with `Vary: Accept`: `GET /` answers a page or JSON by the request's `Accept`.
    var varying: Response {
        var response = self
        response.headers.add(name: "vary", value: "Accept")
        return response
    }
}
