// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mediad",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "mediad", targets: ["mediad"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [
                .apt([
                    "libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev", "libavfilter-dev",
                    "libswscale-dev",
                ])
            ]
        ),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CMalloc"),
        // Wraps malloc and its relatives to count failed allocations (AllocationWatch.c says how); linked
        // into mediad through MediadRuntime, whose workers name such failures `out_of_memory`.
        .target(name: "CAllocationWatch"),
        // Foundation: small pieces the store, the client, the HTTP server and the runtime share, depending on
        // nothing else of ours. `Digests` is the one module that calls libcrypto.
        .target(name: "DurableIO"),
        .target(name: "Digests", dependencies: ["COpenSSL"]),
        .target(name: "MediadFoundation", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
        // Media: the engine over FFmpeg and the job kinds, knowing nothing of HTTP.
        .target(name: "MediaCore", dependencies: ["CFFmpeg", "DurableIO"]),
        .target(name: "MediaJobs", dependencies: ["MediaCore", "CFFmpeg", "DurableIO"]),
        // The store: job records (which hold a kind's options) on the file system.
        .target(
            name: "JobStore", dependencies: ["MediaCore", "MediaJobs", "DurableIO", "Digests", "MediadFoundation"]),
        // The database replicas share: job records, the queue and leases in PostgreSQL.
        .target(
            name: "JobDatabase",
            dependencies: [
                "JobStore", "MediaJobs", "MediadFoundation",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // HTTP, client and server: generic, knowing no job, linking no FFmpeg.
        .target(
            name: "MediadClient",
            dependencies: [
                "Digests", "MediadFoundation",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "MediadHTTP",
            dependencies: [
                "MediadFoundation", "CZlib", "CMalloc",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Backends that replicas share: object storage through the S3 API (signed with SigV4).
        .target(
            name: "ObjectStorage",
            dependencies: [
                "Digests", "MediadFoundation", "MediadClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The runtime (job service, scheduling, workers, webhooks) and the server's handlers above it.
        .target(
            name: "MediadRuntime",
            dependencies: [
                "MediaCore", "MediaJobs", "JobStore", "JobDatabase", "MediadClient", "ObjectStorage", "Digests",
                "MediadFoundation", "CAllocationWatch",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "Server",
            dependencies: [
                "MediaCore", "MediaJobs", "JobStore", "JobDatabase", "MediadClient", "MediadHTTP", "MediadRuntime",
                "ObjectStorage", "Digests", "MediadFoundation",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The web console's HTML, CSS and JavaScript, compiled into the binary as byte arrays.
            resources: [.embedInCode("ConsoleAssets")]
        ),
        .executableTarget(
            name: "mediad",
            dependencies: [
                "MediaCore", "MediaJobs", "JobStore", "JobDatabase", "Server", "MediadClient", "MediadHTTP",
                "MediadRuntime", "ObjectStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "mediad-bench", dependencies: ["MediaCore", "MediaJobs"], path: "Benchmarks/mediad-bench"),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore", "CFFmpeg", "TestSupport"]),
        .testTarget(name: "MediaJobsTests", dependencies: ["MediaCore", "MediaJobs", "CFFmpeg", "TestSupport"]),
        .testTarget(name: "mediadTests", dependencies: ["TestSupport"]),
        .testTarget(
            name: "ObjectStorageTests",
            dependencies: [
                "ObjectStorage", "MediadClient", "MediadRuntime", "JobStore", "MediaCore", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["aws-sigv4-suite", "botocore_sign.py"]),
        .testTarget(
            name: "JobStoreTests", dependencies: ["JobStore", "MediaJobs", "DurableIO", "Digests", "TestSupport"]),
        .testTarget(
            name: "JobDatabaseTests",
            dependencies: [
                "JobDatabase", "JobStore", "MediaJobs", "TestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "MediadClient", "MediadHTTP", "MediadRuntime", "JobStore", "MediaCore", "MediaJobs",
                "ObjectStorage", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: [
                "openapi_check.py", "http_lint.py", "response_check.py", "schemathesis.toml", "schemathesis_hooks.py",
                "console_browser.py", "Peers", "package_manifests.py", "package_mse.py", "browser_temporaries.py",
            ]),
    ]
)

// Every Swift target sees a module's members only where it imports that module, not wherever some other file
// of the target or a dependency happens to import it: each file says what it uses.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
