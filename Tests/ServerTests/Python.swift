import Foundation
import TestSupport

/// Python socket clients, for what curl will not do: broken HTTP, clients that stall or never read,
/// hundreds of connections at once.
enum Python {
    /// Runs `script` (which must bound its own time) and returns what it printed.
    static func run(_ script: String) throws -> String {
        let scratch = try Scratch("python")
        let file = try scratch.write("client.py", Array(script.utf8))
        return try Command.run("python3", [file]).text
    }
}
