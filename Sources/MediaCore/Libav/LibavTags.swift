import CFFmpeg

/// Reads libav metadata dictionaries into Swift.
public enum LibavTags {
    public static func dictionary(_ metadata: OpaquePointer?) -> [String: String] {
        var result: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(metadata, "", entry, AV_DICT_IGNORE_SUFFIX) {
            result[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
            entry = next
        }
        return result
    }
}
