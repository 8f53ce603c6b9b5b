import JobDatabase
import PostgresNIO
import Testing

/// `--database` URLs: what each part becomes, and one clear `invalid_database_url` line, never holding the
/// password, for each way a URL can be wrong.
@Suite struct DatabaseURLTests {
    @Test func readsEveryPart() throws {
        let settings = try DatabaseSettings(
            url: "postgres://mediad:secret@db.example:6543/jobs?sslmode=require&connect_timeout=3")
        #expect(settings.user == "mediad")
        #expect(settings.password == "secret")
        #expect(settings.host == "db.example")
        #expect(settings.port == 6543)
        #expect(settings.database == "jobs")
        #expect(settings.sslMode == .require)
        #expect(settings.connectTimeout == 3)
        #expect(settings.rootCertificatePath == nil)
        let configuration = settings.clientConfiguration
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "mediad")
        #expect(configuration.password == "secret")
        #expect(configuration.database == "jobs")
    }

    @Test func defaultsAsPostgreSQLDoes() throws {
        let settings = try DatabaseSettings(url: "postgresql://mediad@db")
        #expect(settings.port == 5432)
        #expect(settings.password == nil)
        #expect(settings.database == "mediad")
        #expect(settings.sslMode == .prefer)
        #expect(settings.connectTimeout == 10)
    }

    @Test func percentDecodesUserPasswordAndDatabase() throws {
        let settings = try DatabaseSettings(url: "postgres://us%40er:p%40ss%3Aw%2Frd%201%25@db/my%20jobs")
        #expect(settings.user == "us@er")
        #expect(settings.password == "p@ss:w/rd 1%")
        #expect(settings.database == "my jobs")
    }

    @Test func readsIPv6Hosts() throws {
        let settings = try DatabaseSettings(url: "postgres://mediad@[::1]:5433/jobs")
        #expect(settings.host == "::1")
        #expect(settings.port == 5433)
        #expect(settings.description == "postgres://mediad@[::1]:5433/jobs")
    }

    @Test(arguments: SSLMode.allCases) func readsEverySSLMode(_ mode: SSLMode) throws {
        let settings = try DatabaseSettings(
            url: "postgres://mediad@db/jobs?sslmode=\(mode.rawValue)&sslrootcert=/etc/ssl/db.pem")
        #expect(settings.sslMode == mode)
        #expect(settings.rootCertificatePath == "/etc/ssl/db.pem")
    }

    @Test func describesTheURLWithoutThePassword() throws {
        let settings = try DatabaseSettings(url: "postgres://mediad:hunter2@db:5432/jobs")
        #expect(settings.description == "postgres://mediad@db:5432/jobs")
    }

    @Test(arguments: [
        ("not a url", "not a URL"),
        ("mysql://mediad:hunter2@db/jobs", "scheme is 'mysql'"),
        ("postgres://db/jobs", "names no user"),
        ("postgres://:hunter2@db/jobs", "user name is empty"),
        ("postgres://mediad:hunter2@/jobs", "names no host"),
        ("postgres://mediad:hunter2@:5432/jobs", "names no host"),
        ("postgres://mediad:hunter2@db:99999/jobs", "port '99999'"),
        ("postgres://mediad:hunter2@db:54x/jobs", "port '54x'"),
        ("postgres://mediad:hunter2@[::1/jobs", "no ']'"),
        ("postgres://mediad:hunter2@db/jobs/more", "more than a database name"),
        ("postgres://mediad:hunter%2@db/jobs", "password has a malformed %-escape"),
        ("postgres://mediad:hunter2@db/jobs?sslmode=maybe", "sslmode 'maybe' is not one of"),
        ("postgres://mediad:hunter2@db/jobs?sslmode=disable&sslmode=require", "sslmode is given twice"),
        ("postgres://mediad:hunter2@db/jobs?application=x", "parameter 'application' is not one mediad knows"),
        ("postgres://mediad:hunter2@db/jobs?connect_timeout=0", "connect_timeout '0'"),
        ("postgres://mediad:hunter2@db/jobs?sslrootcert=", "sslrootcert is empty"),
    ])
    func refusesBadURLs(_ url: String, _ reason: String) {
        do {
            _ = try DatabaseSettings(url: url)
            Issue.record("\(url) was accepted")
        } catch let error as DatabaseError {
            #expect(error.code == .invalidURL)
            #expect(error.message.contains(reason), "\(error.message)")
            #expect(!error.message.contains("hunter"), "the message shows the password: \(error.message)")
            #expect(!error.message.contains("\n"))
        } catch {
            Issue.record("\(url): \(error)")
        }
    }
}
