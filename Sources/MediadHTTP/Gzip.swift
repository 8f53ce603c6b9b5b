import CZlib

/// gzip (RFC 1952) compression of an in-memory body with zlib.
package enum Gzip {
    /// The gzip member for `input`, or nil if zlib fails (the caller then sends the body uncompressed).
    package static func compress(_ input: [UInt8], level: Int32 = 6) -> [UInt8]? {
        guard !input.isEmpty else { return nil }
        var stream = z_stream()
        guard mediad_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 32)
        let status = input.withUnsafeBytes { source -> Int32 in
            output.withUnsafeMutableBytes { destination -> Int32 in
                // zlib never writes through next_in; its C declaration just lacks the const.
                stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress!)
                stream.avail_in = uInt(source.count)
                stream.next_out = destination.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(destination.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}
