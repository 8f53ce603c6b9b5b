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
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev"])]
        ),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "MediaCore", dependencies: ["CFFmpeg"]),
        .target(name: "MediaJobs", dependencies: ["MediaCore"]),
        .target(name: "JobStore", dependencies: ["COpenSSL"]),
        .target(
            name: "Server",
            dependencies: [
                "MediaJobs", "JobStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ]
        ),
        .executableTarget(
            name: "mediad",
            dependencies: [
                "MediaJobs", "Server",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "mediad-bench", dependencies: ["MediaCore", "MediaJobs"], path: "Benchmarks/mediad-bench"),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore", "TestSupport"]),
        .testTarget(name: "MediaJobsTests", dependencies: ["MediaJobs", "TestSupport"]),
        .testTarget(name: "mediadTests", dependencies: ["TestSupport"]),
        .testTarget(name: "JobStoreTests", dependencies: ["JobStore", "TestSupport"]),
        .testTarget(name: "ServerTests", dependencies: ["Server", "TestSupport"], exclude: ["openapi_check.py"]),
    ]
)
