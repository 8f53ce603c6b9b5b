import CFFmpeg

/// What a stream copy carries from an input stream to its output stream besides the codec parameters.
public enum StreamCopy {
    /// Copies tags (language, handler), disposition, frame rates, sample aspect ratio (onto the codec
    /// parameters too) and side data (the display matrix among them): what fftools' stream copy
    /// (`init_output_stream_streamcopy`) carries over.
    /// FLV states its `framerate` and Matroska its default duration from the frame rates (without them FLV
    /// declares the time base's 1000 fps), the mov muxer needs them to write a `timecode` tag as a QuickTime
    /// timecode track, and HLS and DASH manifests state them.
    public static func carryProperties(
        from source: UnsafeMutablePointer<AVStream>, to stream: UnsafeMutablePointer<AVStream>
    ) throws {
        av_dict_copy(&stream.pointee.metadata, source.pointee.metadata, 0)
        stream.pointee.disposition = source.pointee.disposition
        stream.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        stream.pointee.r_frame_rate = source.pointee.r_frame_rate
        // The container's aspect ratio (`pasp`, Matroska's display size) wins over the bitstream's, and
        // both sides get it, as fftools' stream copy does: the muxers refuse the two when they disagree (an
        // H.263 3GP with a `pasp` of 1:1 over the 12:11 its picture header implies).
        let aspect =
            source.pointee.sample_aspect_ratio.num != 0
            ? source.pointee.sample_aspect_ratio : stream.pointee.codecpar.pointee.sample_aspect_ratio
        stream.pointee.sample_aspect_ratio = aspect
        stream.pointee.codecpar.pointee.sample_aspect_ratio = aspect
        for index in 0..<Int(source.pointee.nb_side_data) {
            let item = source.pointee.side_data[index]
            guard let copy = av_stream_new_side_data(stream, item.type, item.size) else {
                throw MediaError(.internalError, "copying stream side data failed")
            }
            copy.update(from: item.data, count: item.size)
        }
    }
}
