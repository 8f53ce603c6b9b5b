// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mediad",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "mediad", targets: ["mediad"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev"])]
        ),
        .target(name: "MediaCore", dependencies: ["CFFmpeg"]),
        .target(name: "MediaJobs", dependencies: ["MediaCore"]),
        .executableTarget(
            name: "mediad",
            dependencies: [
                "MediaJobs",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore", "TestSupport"]),
        .testTarget(name: "MediaJobsTests", dependencies: ["MediaJobs", "TestSupport"]),
        .testTarget(name: "mediadTests", dependencies: ["TestSupport"]),
    ]
)
