import Foundation
import Testing

/// The targets stand in layers, and every declared dependency points down: the HTTP client and server
/// know no job and link no FFmpeg, the media engine knows no HTTP, libcrypto is called from one module.
/// Read from Package.swift as SwiftPM evaluates it, so a new edge that points up fails here.
@Suite struct LayeringTests {
    /// Where a target stands, lowest first.
    enum Layer: String, CaseIterable, Sendable {
        /// The FFmpeg libraries (`CFFmpeg`).
        case ffmpeg
        /// libcrypto (`COpenSSL`).
        case libcrypto
        /// The other C libraries and shims: zlib, malloc's controls, the allocation watch.
        case cLibrary
        /// Small Swift pieces shared by everything above: durable writes, percent-encoding, random ids.
        case foundation
        /// Message digests and HMAC, the one caller of libcrypto.
        case digests
        /// The media engine over FFmpeg.
        case mediaCore
        /// The job kinds the engine runs.
        case mediaJobs
        /// The job store, whose records hold a kind's options.
        case store
        /// The jobs replicas share in PostgreSQL, whose records are the store's.
        case database
        /// HTTP, the client and the server side by side: generic, knowing no job and each not the other.
        case http
        /// The media replicas share through the S3 API, and its signing.
        case objectStorage
        /// The job service, scheduling, workers, egress and webhooks.
        case runtime
        /// The HTTP API's handlers over the runtime.
        case server
        /// The executables.
        case command
        /// Helpers of the tests.
        case testSupport
        /// The test targets, which may reach into every layer (FFmpeg is an oracle of theirs).
        case tests
    }

    /// The layer of every target that is not a test target.
    static let layers: [String: Layer] = [
        "CFFmpeg": .ffmpeg, "COpenSSL": .libcrypto, "CZlib": .cLibrary, "CMalloc": .cLibrary,
        "CAllocationWatch": .cLibrary, "DurableIO": .foundation, "MediadFoundation": .foundation,
        "Digests": .digests, "MediaCore": .mediaCore, "MediaJobs": .mediaJobs, "JobStore": .store,
        "JobDatabase": .database, "MediadClient": .http, "MediadHTTP": .http, "ObjectStorage": .objectStorage,
        "MediadRuntime": .runtime, "Server": .server,
        "mediad": .command, "mediad-bench": .command, "TestSupport": .testSupport,
    ]

    /// The layers each layer may depend on. No layer lists itself: targets of one layer are independent.
    static let allowed: [Layer: Set<Layer>] = [
        .ffmpeg: [], .libcrypto: [], .cLibrary: [], .foundation: [],
        .digests: [.libcrypto],
        .mediaCore: [.ffmpeg, .foundation],
        .mediaJobs: [.ffmpeg, .foundation, .mediaCore],
        .store: [.foundation, .digests, .mediaCore, .mediaJobs],
        .database: [.foundation, .mediaCore, .mediaJobs, .store],
        .http: [.cLibrary, .foundation, .digests],
        .objectStorage: [.foundation, .digests, .http],
        .runtime: [
            .cLibrary, .foundation, .digests, .mediaCore, .mediaJobs, .store, .database, .http, .objectStorage,
        ],
        .server: [.foundation, .digests, .mediaCore, .mediaJobs, .store, .database, .http, .objectStorage, .runtime],
        .command: [
            .foundation, .digests, .mediaCore, .mediaJobs, .store, .database, .http, .objectStorage, .runtime, .server,
        ],
        .testSupport: [],
        .tests: Set(Layer.allCases).subtracting([.tests]),
    ]

    /// The manifest, read once for the suite.
    static let graph = Result { try PackageGraph.load() }

    static func layer(of target: PackageGraph.Target) -> Layer? {
        target.type == "test" ? .tests : layers[target.name]
    }

    @Test func everyTargetHasALayer() throws {
        let graph = try Self.graph.get()
        #expect(graph.targets.count > 10, "the manifest did not list the package's targets")
        for target in graph.targets.values {
            #expect(Self.layer(of: target) != nil, "\(target.name) has no layer: put it in LayeringTests.layers")
        }
        #expect(Set(Self.allowed.keys) == Set(Layer.allCases))
    }

    @Test func everyDependencyPointsDown() throws {
        for target in try Self.graph.get().targets.values {
            guard let layer = Self.layer(of: target) else { continue }
            for dependency in target.targets {
                let below = try #require(Self.layers[dependency], "\(dependency) has no layer")
                #expect(
                    Self.allowed[layer, default: []].contains(below),
                    "\(target.name) (\(layer)) depends on \(dependency) (\(below)), which \(layer) may not")
            }
        }
    }

    @Test func httpLinksNoMediaAndNoStore() throws {
        let graph = try Self.graph.get()
        let forbidden: Set<Layer> = [.ffmpeg, .mediaCore, .mediaJobs, .store, .database]
        for name in ["MediadHTTP", "MediadClient"] {
            let reached = graph.closure(of: name).filter { Self.layers[$0].map(forbidden.contains) ?? false }
            #expect(reached.isEmpty, "\(name) reaches \(reached.sorted())")
        }
    }

    /// A module a target imports is one it declares: nothing is used only because it comes along with
    /// another dependency.
    @Test func everyImportedModuleIsDeclared() throws {
        let graph = try Self.graph.get()
        let ours = Set(graph.targets.keys)
        let products = Set(graph.targets.values.flatMap(\.products))
        for target in graph.targets.values where target.type != "system" {
            let declared = Set(target.targets + target.products)
            let undeclared = try graph.imports(of: target).intersection(ours.union(products)).subtracting(declared)
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared.sorted()) without declaring them")
        }
    }

    @Test func everySwiftTargetSeesOnlyTheModulesItImports() throws {
        for target in try Self.graph.get().targets.values where target.type != "system" {
            #expect(
                target.upcomingFeatures.contains("MemberImportVisibility"),
                "\(target.name) does not turn on MemberImportVisibility")
        }
    }
}
