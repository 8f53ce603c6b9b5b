/// `Content-Disposition` (RFC 6266, and RFC 7578 §4.2 for multipart parts): read from an upload's part
/// headers, written on downloads.
package struct ContentDisposition {
    /// `form-data`, `attachment`, … lowercased.
    package var type: String
    package var name: String?
    /// `filename*` decoded (RFC 8187) when it is present and valid, else `filename`.
    package var filename: String?

    /// Parses a field value. Throws `invalid_request` when a parameter is given twice: a proxy or scanner
    /// in front may have taken the other one.
    package init(_ field: String) throws {
        let parsed = HeaderParameters(field)
        if let repeated = parsed.repeatedNames.first {
            throw ServiceError.invalidRequest("Content-Disposition has the parameter \(repeated) twice")
        }
        type = parsed.value.lowercased()
        name = parsed["name"]
        filename = parsed["filename*"].flatMap(ExtValue.decode) ?? parsed["filename"]
    }

    /// `attachment; filename="…"` for a download called `filename`. A name that is not plain printable
    /// ASCII is sent as `filename*=UTF-8''…` too, after an ASCII stand-in in `filename` for clients that do
    /// not read `filename*` (RFC 6266 §4.3 and appendix D): letters lose their accents, other characters,
    /// quotes, backslashes and `%` become `_`.
    package static func attachment(filename: String) -> String {
        let fallback = asciiFallback(filename)
        let plain = "attachment; filename=\"\(fallback)\""
        return fallback == filename ? plain : plain + "; filename*=" + ExtValue.encode(filename)
    }

    private static func asciiFallback(_ filename: String) -> String {
        var fallback = String.UnicodeScalarView()
        for character in filename {
            // A letter with combining accents keeps its first scalar, the base letter.
            let scalar = (character.unicodeScalars.first ?? "_").latinBase
            let printable = scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7F
            fallback.append(printable && !"\"\\%".unicodeScalars.contains(scalar) ? scalar : "_")
        }
        return String(fallback)
    }
}

extension Unicode.Scalar {
    /// The base letter of a Latin letter with a diacritic (`é` → `e`), read from its Unicode name
    /// (`LATIN SMALL LETTER E WITH ACUTE`); the scalar itself otherwise.
    fileprivate var latinBase: Unicode.Scalar {
        guard !isASCII, let name = properties.name, name.hasPrefix("LATIN "),
            let with = name.firstRange(of: " WITH "),
            let letter = name[..<with.lowerBound].split(separator: " ").last, letter.count == 1,
            let capital = letter.unicodeScalars.first, capital.isASCII
        else { return self }
        return name.contains("SMALL") ? Unicode.Scalar(capital.value + 0x20) ?? self : capital
    }
}
