import Foundation
import Glibc

/// A PostgreSQL server of its own for a suite of tests: a fresh cluster in a temporary directory, listening
/// on a free loopback port and on a socket in that directory, never the system's cluster or service.
///
/// The cluster is made with the highest `/usr/lib/postgresql/<version>/bin` (`make test` installs
/// PostgreSQL without creating Debian's main cluster). `initdb` refuses to run as root, so when the tests
/// run as root the server's programs run as the `postgres` user (`runuser`), in a directory that user owns.
/// The `postgres` superuser is trusted on the socket; `user` logs in over TCP with its password
/// (SCRAM-SHA-256), so the tests connect with real authentication. `stop` and `start` take the server down
/// and up again on the same port (an outage); `shutdown` stops it for good and removes the directory.
public final class PostgresServer: @unchecked Sendable {
    // Everything is set once in init; the methods only run programs against the directory.
    /// The login the tests connect as, and its password: characters a URL must percent-encode.
    public static let user = "mediad"
    public static let password = "p@ss:w/rd 1%"

    public let port: Int
    /// The temporary directory: the cluster (`data`), its log (`server.log`) and the socket.
    public let directory: String
    private let binaries: String
    private var data: String { directory + "/data" }

    /// Creates the cluster, starts it and creates `user`.
    public init() throws {
        binaries = try Self.binaries()
        var template = Array("/tmp/mediad-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure("mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
        port = try Self.freePort()
        do {
            if getuid() == 0 {
                guard let account = getpwnam("postgres") else { throw Failure("there is no postgres user") }
                guard chown(directory, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                    throw Failure("chown \(directory) failed: errno \(errno)")
                }
            }
            try runAsOwner([
                "initdb", "-D", data, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync",
                "--no-locale", "-E", "UTF8",
            ])
            try start()
            try psql("CREATE ROLE \(Self.user) LOGIN CREATEDB PASSWORD '\(Self.password)'")
        } catch {
            shutdown()
            throw error
        }
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        let options = [
            "-p \(port)", "-k \(directory)", "-c listen_addresses=127.0.0.1", "-c fsync=off",
            "-c full_page_writes=off", "-c synchronous_commit=off", "-c max_connections=200",
        ]
        let start = [
            "pg_ctl", "-D", data, "-l", directory + "/server.log", "-w", "-t", "60", "-o",
            options.joined(separator: " "),
            "start",
        ]
        do {
            try runAsOwner(start)
        } catch {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw Failure("PostgreSQL did not start: \(error)\n\(log.suffix(2000))")
        }
    }

    /// Stops the server (`pg_ctl stop -m fast`), or kills its postmaster if that fails.
    public func stop() {
        let pid = postmasterPID()
        guard (try? runAsOwner(["pg_ctl", "-D", data, "-m", "fast", "-w", "-t", "60", "stop"])) == nil,
            let pid
        else { return }
        kill(pid, SIGQUIT)
        for _ in 0..<100 where kill(pid, 0) == 0 { usleep(50_000) }
        kill(pid, SIGKILL)
    }

    /// Stops the server and removes its directory.
    public func shutdown() {
        if FileManager.default.fileExists(atPath: data + "/postmaster.pid") { stop() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Creates the database `name`, owned by `user`.
    public func createDatabase(_ name: String) throws {
        try psql("CREATE DATABASE \"\(name)\" OWNER \(Self.user)")
    }

    /// Runs `sql` as the superuser over the socket and returns its rows, one a line, columns split by `|`.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try Command.run(
            binaries + "/psql",
            [
                "-h", directory, "-p", String(port), "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-At",
                "-c", sql,
            ]
        ).text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A URL of `database` on this server over TCP, with `user` and its password percent-encoded.
    public func url(database: String, password: String = PostgresServer.password, query: String = "sslmode=disable")
        -> String
    {
        let allowed = CharacterSet.alphanumerics
        let encoded = password.addingPercentEncoding(withAllowedCharacters: allowed) ?? password
        return "postgres://\(Self.user):\(encoded)@127.0.0.1:\(port)/\(database)" + (query.isEmpty ? "" : "?" + query)
    }

    /// The postmaster's process id, from `postmaster.pid`, while it runs.
    private func postmasterPID() -> pid_t? {
        guard let text = try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Runs one of PostgreSQL's programs as the owner of the directory (`postgres` when we are root), its
    /// output appended to `commands.log` in the directory, and waits for it.
    ///
    /// Spawned and reaped here rather than through `Command`: `pg_ctl start` leaves the postmaster running,
    /// and waiting on it through Foundation's `Process` did not return once pg_ctl had exited.
    ///
    /// The child keeps only its standard descriptors (`closefrom` 3). Tests run in parallel, and a postmaster
    /// that inherited the write end of another test's pipe (a `psql` or `ffmpeg` that `Command` is reading)
    /// would hold it open for its whole life: that reader never saw the end of its output, and whole suites
    /// hung until the run was over.
    private func runAsOwner(_ arguments: [String]) throws {
        let program = [binaries + "/" + arguments[0]] + arguments.dropFirst()
        let argv = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + program : program
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory + "/commands.log", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        guard closeFrom(&actions, 3) == 0 else { throw Failure("posix_spawn_file_actions_addclosefrom_np failed") }
        var pointers = argv.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        pointers.append(nil)
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, pointers, environ)
        guard spawned == 0 else { throw Failure("cannot run \(argv[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure("waitpid failed: errno \(errno)") }
        }
        // Exited normally with status 0: the low 7 bits (the signal) and the exit code are all zero.
        guard status == 0 else {
            let log = (try? String(contentsOfFile: directory + "/commands.log", encoding: .utf8)) ?? ""
            throw Failure("\(arguments.joined(separator: " ")) failed (wait status \(status)): \(log.suffix(2000))")
        }
    }

    /// The `bin` directory of the highest PostgreSQL version installed.
    private static func binaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        guard let highest = versions.last, FileManager.default.isExecutableFile(atPath: "\(root)/\(highest)/bin/initdb")
        else { throw Failure("PostgreSQL is not installed (no \(root)/<version>/bin/initdb): run `make test-deps`") }
        return "\(root)/\(highest)/bin"
    }

    /// A TCP port on 127.0.0.1 that nothing listens on: one the kernel picks for a socket closed at once.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw Failure("bind failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later): the child closes every descriptor from
/// `from` up. spawn.h declares it only under `__USE_MISC`, which the Swift overlay of Glibc leaves out, so it is
/// named here by its symbol; its arguments are plain C types.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
