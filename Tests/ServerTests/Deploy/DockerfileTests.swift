import Foundation
import MediadHTTP
import NIOHTTP1
import Server
import TestSupport
import Testing

/// The `Dockerfile`, read without Docker (no engine runs here): its stages and images, the runtime user,
/// port, volume, health check and command, and its runtime package list against the shared libraries the
/// built `mediad` really links, mapped to their Debian packages with `dpkg -S`.
@Suite struct DockerfileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static func dockerfile() throws -> DockerfileModel {
        try DockerfileModel(contentsOf: root.appendingPathComponent("Dockerfile").path)
    }

    /// Packages of the base image that every binary needs anyway (the C library).
    static let basePackages: Set<String> = ["libc6"]
    /// Packages the runtime stage installs as tools or data rather than libraries of `mediad`: curl for
    /// the health check, the certificate authorities that https callbacks are verified against.
    static let tools: Set<String> = ["curl", "ca-certificates"]
    /// What a `--static-swift-stdlib` release build links in place of the toolchain's Swift libraries that a
    /// debug build loads: the C++ runtime (`NEEDED libstdc++.so.6, libgcc_s.so.1`).
    static let staticRuntime: Set<String> = ["libstdc++6", "libgcc-s1"]

    @Test func buildsWithSwiftThenRunsOnSlimBookworm() throws {
        let file = try Self.dockerfile()
        try #require(file.stages.count == 2)
        let (build, runtime) = (file.stages[0], file.stages[1])
        #expect(build.image.hasPrefix("swift:6.3") && build.image.hasSuffix("-bookworm"))
        #expect(build.name != nil)
        #expect(build.all("RUN").contains { $0.contains("swift build -c release --static-swift-stdlib") })
        #expect(runtime.image == "debian:bookworm-slim")
        #expect(runtime.all("COPY").contains { $0.hasPrefix("--from=\(build.name ?? "")") })
        #expect(!runtime.aptPackages.contains { $0.hasSuffix("-dev") }, "no headers in the runtime image")
    }

    @Test func runtimeIsNonRootOnThePortWithDataVolumeAndHealthCheck() throws {
        let runtime = try #require(try Self.dockerfile().stages.last)
        let user = try #require(runtime.all("USER").last)
        #expect(!["root", "0"].contains(user.split(separator: ":").first.map(String.init) ?? ""), "USER \(user)")
        let port = ServerConfiguration().port
        #expect(runtime.all("EXPOSE") == ["\(port)"])
        #expect(runtime.all("VOLUME").contains { $0.contains("\"/data\"") || $0 == "/data" })

        let health = try #require(runtime.all("HEALTHCHECK").last)
        let command = try #require(health.range(of: "CMD ").map { String(health[$0.upperBound...]) })
        let probe = try #require(DockerfileModel.execForm(command))
        #expect(runtime.aptPackages.contains(probe[0]), "the health check's \(probe[0]) is installed")
        let url = try #require(probe.last.flatMap(URL.init(string:)))
        #expect(url.port == port && url.host == "127.0.0.1")
        #expect(Self.getRoutes.contains(url.path), "\(url.path) is a route")

        let entry = try #require(runtime.all("ENTRYPOINT").last.flatMap(DockerfileModel.execForm))
        let arguments = try #require(runtime.all("CMD").last.flatMap(DockerfileModel.execForm))
        let line = (entry + arguments).joined(separator: " ")
        #expect(line.contains("mediad serve --host 0.0.0.0"))
        #expect(line.contains("--data-dir /data") && line.contains("--port \(port)"))
    }

    /// Every library `mediad` links itself, and every libav, OpenSSL and zlib library it loads, comes from a
    /// package the runtime stage installs; every library package installed there provides one of them; and
    /// the build stage installs the `-dev` package that depends on each.
    ///
    /// The binary is the one under test (`MEDIAD_BIN`, a debug build); set `MEDIAD_STATIC_BIN` to the output
    /// of `swift build -c release --static-swift-stdlib` to check the very binary the image would hold.
    @Test func runtimePackagesMatchTheLibrariesTheBinaryLinks() throws {
        let stages = try Self.dockerfile().stages
        let runtime = Set(try #require(stages.last).aptPackages)
        var linked = try Self.linkedPackages(of: ServerProcess.binary)
        if let release = ProcessInfo.processInfo.environment["MEDIAD_STATIC_BIN"] {
            let releaseLinked = try Self.linkedPackages(of: release)
            #expect(Set(releaseLinked.keys).isSuperset(of: Self.staticRuntime), "\(releaseLinked)")
            linked.merge(releaseLinked) { $0 + $1 }
        }
        #expect(linked.keys.contains("libavformat59") && linked.keys.contains("libssl3"), "\(linked)")
        for (package, libraries) in linked where !Self.basePackages.contains(package) {
            #expect(runtime.contains(package), "\(libraries) come from \(package), which the image lacks")
        }
        #expect(runtime.isSuperset(of: Self.staticRuntime))
        for package in runtime.subtracting(Self.tools).subtracting(Self.staticRuntime) {
            #expect(linked[package] != nil, "\(package) is installed but provides nothing mediad links")
        }
        let devPackages = try #require(stages.first).aptPackages.filter { $0.hasSuffix("-dev") }
        for package in linked.keys where !Self.basePackages.union(Self.staticRuntime).contains(package) {
            let providers = try devPackages.filter { dev in
                let depends = try Command.run("dpkg-query", ["-W", "-f=${Depends}", dev]).text
                return depends.split(separator: ",").contains {
                    $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) == package
                }
            }
            #expect(!providers.isEmpty, "the build stage installs no -dev package for \(package)")
        }
    }

    static var getRoutes: Set<String> {
        Set(ServiceRoute.allCases.map(\.route).filter { $0.method == .GET }.map(\.pattern))
    }

    /// Debian package → the libraries of it that `binary` needs: its direct `NEEDED` entries outside the
    /// Swift toolchain, and the libav, OpenSSL and zlib libraries of its `ldd` closure.
    static func linkedPackages(of binary: String) throws -> [String: [String]] {
        let needed = Set(
            try Command.run("readelf", ["-d", binary]).text.split(separator: "\n")
                .filter { $0.contains("(NEEDED)") }
                .compactMap { $0.split(separator: "[").last?.split(separator: "]").first.map(String.init) })
        let wanted = ["libavformat", "libavcodec", "libavutil", "libswresample", "libssl", "libcrypto", "libz."]
        var packages: [String: [String]] = [:]
        for line in try Command.run("ldd", [binary]).text.split(separator: "\n") {
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard words.count >= 3, words[1] == "=>", words[2].hasPrefix("/"), !words[2].hasPrefix("/opt/swift")
            else { continue }
            let soname = words[0]
            guard needed.contains(soname) || wanted.contains(where: soname.hasPrefix) else { continue }
            packages[try owner(of: words[2], soname: soname), default: []].append(soname)
        }
        return packages
    }

    /// The package owning the file at `path` (`dpkg -S`, matched on the resolved path since usr-merged
    /// systems register `/usr/lib` where the loader reports `/lib`).
    static func owner(of path: String, soname: String) throws -> String {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        for line in try Command.run("dpkg", ["-S", "*/" + soname]).text.split(separator: "\n") {
            guard let separator = line.range(of: ": ") else { continue }
            let file = String(line[separator.upperBound...])
            guard URL(fileURLWithPath: file).resolvingSymlinksInPath().path == resolved else { continue }
            return String(line[..<separator.lowerBound].split(separator: ":")[0])
        }
        throw Unowned(path: path)
    }

    struct Unowned: Error, CustomStringConvertible {
        var path: String
        var description: String { "dpkg -S knows no package owning \(path)" }
    }
}
