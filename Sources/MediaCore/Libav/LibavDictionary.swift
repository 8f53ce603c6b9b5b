import CFFmpeg

/// Owns an `AVDictionary` of options passed into libav, and frees whatever libav leaves in it.
final class LibavDictionary {
    var pointer: OpaquePointer?

    init(_ entries: [String: String] = [:]) {
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) { set(key, value) }
    }

    func set(_ key: String, _ value: String) {
        av_dict_set(&pointer, key, value, 0)
    }

    /// Keys libav did not consume: options no component recognised.
    var remainingKeys: [String] {
        var keys: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(pointer, "", entry, AV_DICT_IGNORE_SUFFIX) {
            keys.append(String(cString: next.pointee.key))
            entry = next
        }
        return keys
    }

    deinit { av_dict_free(&pointer) }
}
