import Foundation
import TestSupport

/// The package's targets and the dependencies each declares, as SwiftPM itself reads Package.swift
/// (`swift package dump-package`), and the modules each target's Swift files import.
struct PackageGraph: Sendable {
    /// One target of this package.
    struct Target: Sendable {
        var name: String
        /// `regular`, `executable`, `test` or `system` (a C library's module map).
        var type: String
        /// Where its sources are, relative to the package's root.
        var path: String
        /// The targets of this package it depends on.
        var targets: [String]
        /// The products of other packages it depends on.
        var products: [String]
        /// The upcoming language features its Swift settings turn on.
        var upcomingFeatures: [String]
    }

    /// The package's root: the folder holding Package.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every target, by name.
    let targets: [String: Target]

    /// Evaluates the manifest. A scratch folder of its own keeps `dump-package` off the lock on `.build`
    /// that the `swift test` running this holds.
    static func load() throws -> PackageGraph {
        let scratch = try Scratch("manifest")
        let output = try Command.run(
            "swift", ["package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"])
        let manifest = try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any] ?? [:]
        let entries = manifest["targets"] as? [[String: Any]] ?? []
        let names = Set(entries.compactMap { $0["name"] as? String })
        var targets: [String: Target] = [:]
        for entry in entries {
            guard let name = entry["name"] as? String, let type = entry["type"] as? String else { continue }
            var target = Target(
                name: name, type: type,
                path: entry["path"] as? String ?? (type == "test" ? "Tests/" : "Sources/") + name,
                targets: [], products: [], upcomingFeatures: [])
            for dependency in entry["dependencies"] as? [[String: Any]] ?? [] {
                // `"Name"` in a manifest is `byName`: a target of this package when one has that name.
                if let byName = (dependency["byName"] ?? dependency["target"]) as? [Any],
                    let dependencyName = byName.first as? String
                {
                    if names.contains(dependencyName) {
                        target.targets.append(dependencyName)
                    } else {
                        target.products.append(dependencyName)
                    }
                } else if let product = dependency["product"] as? [Any], let productName = product.first as? String {
                    target.products.append(productName)
                }
            }
            for setting in entry["settings"] as? [[String: Any]] ?? [] {
                let kind = setting["kind"] as? [String: Any]
                if let feature = (kind?["enableUpcomingFeature"] as? [String: Any])?["_0"] as? String {
                    target.upcomingFeatures.append(feature)
                }
            }
            targets[name] = target
        }
        return PackageGraph(targets: targets)
    }

    /// The targets of this package that `name` depends on, directly or through others.
    func closure(of name: String) -> Set<String> {
        var reached: Set<String> = []
        var pending = targets[name]?.targets ?? []
        while let next = pending.popLast() {
            guard reached.insert(next).inserted else { continue }
            pending += targets[next]?.targets ?? []
        }
        return reached
    }

    /// The modules a target's Swift files import (`import X`, `@preconcurrency import X`,
    /// `package import struct X.Y`, …).
    func imports(of target: Target) throws -> Set<String> {
        let folder = Self.root.appendingPathComponent(target.path)
        guard let files = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var modules: Set<String> = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let module = Self.importedModule(line) { modules.insert(module) }
            }
        }
        return modules
    }

    /// The module an import declaration names, or nil for any other line.
    static func importedModule(_ line: Substring) -> String? {
        let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
        let kinds: Set<Substring> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
        var words = line.split(separator: " ")[...]
        while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) { words = words.dropFirst() }
        guard words.first == "import" else { return nil }
        words = words.dropFirst()
        if let first = words.first, kinds.contains(first) { words = words.dropFirst() }
        return words.first.map { String($0.prefix { $0 != "." }) }
    }
}
