import Foundation

/// A Prometheus text exposition (format 0.0.4) parsed into samples, for checking `/metrics`.
struct Exposition {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    private(set) var samples: [Sample] = []
    /// `# TYPE` lines: metric name → counter, gauge, histogram…
    private(set) var types: [String: String] = [:]

    /// Parses the text; throws on a line that is neither a comment nor `name{labels} value`.
    init(_ text: String) throws {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw Malformed(line: String(line))
            }
            let series = line[..<space]
            guard let brace = series.firstIndex(of: "{") else {
                samples.append(Sample(name: String(series), labels: [:], value: value))
                continue
            }
            guard series.hasSuffix("}") else { throw Malformed(line: String(line)) }
            let name = String(series[..<brace])
            let body = series[series.index(after: brace)..<series.index(before: series.endIndex)]
            samples.append(Sample(name: name, labels: try Self.labels(body, line: String(line)), value: value))
        }
    }

    /// The sample with exactly these labels, or nil.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// Every sample of `name` whose labels include `labels`.
    func samples(_ name: String, matching labels: [String: String] = [:]) -> [Sample] {
        samples.filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }
    }

    /// `a="x",b="y"` with `\"`, `\\` and `\n` escapes in values.
    private static func labels(_ text: Substring, line: String) throws -> [String: String] {
        var labels: [String: String] = [:]
        var rest = text[...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { throw Malformed(line: line) }
            let key = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            guard rest.first == "\"" else { throw Malformed(line: line) }
            rest = rest.dropFirst()
            var value = ""
            var escaped = false
            while let character = rest.first {
                rest = rest.dropFirst()
                if escaped {
                    value.append(character == "n" ? "\n" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    break
                } else {
                    value.append(character)
                }
            }
            labels[key] = value
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return labels
    }

    struct Malformed: Error {
        var line: String
    }
}
