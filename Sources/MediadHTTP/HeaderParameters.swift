/// A field value of the form `value *( OWS ";" OWS name "=" ( token / quoted-string ) )`, as
/// `Content-Type` and `Content-Disposition` are written (RFC 9110 §5.6.6).
///
/// A quoted string runs to its closing quote whatever it holds (`;`, `=`, spaces, UTF-8) and a backslash
/// takes the next character as it is (§5.6.4). Parameter names are case-insensitive and kept lowercased.
/// A parameter without `=`, an empty name or an unterminated quoted string is dropped; text after a
/// closing quote up to the next `;` is ignored.
package struct HeaderParameters {
    /// The part before the first `;`, trimmed (`form-data`, `multipart/form-data`).
    package var value: String
    /// Every parameter in order, names lowercased, values unquoted and unescaped.
    package var parameters: [(name: String, value: String)] = []

    package init(_ field: String) {
        let scalars = Array(field.unicodeScalars)
        var index = 0
        func skipSpaces() {
            while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        }
        func read(until stops: Set<Unicode.Scalar>) -> String {
            var text = String.UnicodeScalarView()
            while index < scalars.count, !stops.contains(scalars[index]) {
                text.append(scalars[index])
                index += 1
            }
            return String(text).trimmingSpaces
        }
        value = read(until: [";"])
        while index < scalars.count {
            index += 1
            skipSpaces()
            let name = read(until: [";", "="]).lowercased()
            guard index < scalars.count, scalars[index] == "=" else { continue }
            index += 1
            skipSpaces()
            guard index < scalars.count, scalars[index] == "\"" else {
                let token = read(until: [";"])
                if !name.isEmpty { parameters.append((name, token)) }
                continue
            }
            index += 1
            var text = String.UnicodeScalarView()
            var closed = false
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if scalar == "\\", index < scalars.count {
                    text.append(scalars[index])
                    index += 1
                } else if scalar == "\"" {
                    closed = true
                    break
                } else {
                    text.append(scalar)
                }
            }
            _ = read(until: [";"])
            if closed, !name.isEmpty { parameters.append((name, String(text))) }
        }
    }

    /// The first parameter called `name` (lowercase).
    package subscript(name: String) -> String? { parameters.first { $0.name == name }?.value }

    /// Names given more than once, which leave it unclear which value is meant.
    package var repeatedNames: [String] {
        var seen: Set<String> = []
        return parameters.map(\.name).filter { !seen.insert($0).inserted }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (optional whitespace, RFC 9110 §5.6.3).
    package var trimmingSpaces: String {
        var scalars = Substring(self).unicodeScalars
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
