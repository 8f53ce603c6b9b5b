import Foundation
import TestSupport

/// Fetching many outputs from a replica at once: one Python process (urllib follows the `302` to the
/// presigned GET; hashlib is the oracle) per replica, rather than a curl and a sha256sum per output.
extension ObjectClusterTests {
    /// What a path answers: an output as its job lists it (its SHA-256 and size), or a text that holds
    /// `contains` (a job's log).
    struct Expected: Codable {
        var path: String
        var sha256: String?
        var size: Int?
        var contains: String?
    }

    static let fetcher = """
        import concurrent.futures, hashlib, json, sys, urllib.request
        base, listed = sys.argv[1], json.load(open(sys.argv[2]))
        def check(output):
            try:
                with urllib.request.urlopen(base + output["path"], timeout=60) as reply:
                    body = reply.read()
                    status = reply.status
            except Exception as error:
                return {"path": output["path"], "error": str(error)}
            digest = hashlib.sha256(body).hexdigest()
            if "contains" in output:
                if status != 200 or output["contains"].encode() not in body:
                    return {"path": output["path"], "status": status, "text": body[-300:].decode(errors="replace")}
            elif status != 200 or digest != output["sha256"] or len(body) != output["size"]:
                return {"path": output["path"], "status": status, "sha256": digest, "size": len(body)}
            return None
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            wrong = [found for found in pool.map(check, listed) if found]
        print(json.dumps(wrong))
        """

    /// The paths of `outputs` that `server` does not answer (following its redirect) with exactly the
    /// recorded bytes (or a text holding the one expected), each described by what came instead.
    static func mismatches(_ outputs: [Expected], from server: ServerProcess, scratch: Scratch) throws -> [String] {
        let list = scratch.file("outputs-\(server.port).json")
        try JSONEncoder().encode(outputs).write(to: URL(fileURLWithPath: list))
        let reply = try Command.run("python3", ["-c", fetcher, server.baseURL, list])
        let wrong = try JSONSerialization.jsonObject(with: reply.stdout) as? [[String: Any]] ?? []
        return wrong.map { "\($0)" }
    }
}
