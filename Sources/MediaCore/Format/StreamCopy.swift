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
        // A block alignment is a property of WAV/ASF framing that MP3 and AC-3 do not have: fftools' stream
        // copy clears the one an MP3 packet size (1, 576, 1152) or AC-3 leaves, so ASF does not store it.
        let parameters = stream.pointee.codecpar.pointee
        if (parameters.codec_id == AV_CODEC_ID_MP3 && [1, 576, 1152].contains(parameters.block_align))
            || parameters.codec_id == AV_CODEC_ID_AC3
        {
            stream.pointee.codecpar.pointee.block_align = 0
        }
        for index in 0..<Int(source.pointee.nb_side_data) {
            let item = source.pointee.side_data[index]
            guard let copy = av_stream_new_side_data(stream, item.type, item.size) else {
                throw MediaError(.internalError, "copying stream side data failed")
            }
            copy.update(from: item.data, count: item.size)
        }
    }

    /// The codec tag (FourCC) a copied stream keeps, by fftools' rule (`init_output_stream_streamcopy`):
    /// the input's `tag` when the output format has no tag table, when its table maps that tag to the same
    /// codec, or when its table has no tag at all for the codec; nil (the muxer chooses) otherwise.
    ///
    /// Some codecs need their tag to be read as the source reads: ProRes names its profile and bit depth
    /// only there (`ap4h` is 4444 at 12 bits), which Matroska keeps as the track's private data; without
    /// it the track decodes as 10-bit 4:2:2-era ProRes. A tag of 0 keeps nothing.
    public static func keptTag(
        _ tag: UInt32, codec: AVCodecID, format: UnsafePointer<AVOutputFormat>
    ) -> UInt32? {
        guard tag != 0 else { return nil }
        guard let table = format.pointee.codec_tag else { return tag }
        var own: UInt32 = 0
        if av_codec_get_id(table, tag) == codec || av_codec_get_tag2(table, codec, &own) == 0 { return tag }
        return nil
    }

    /// Marks the first audio and the first video stream of `output` as the default of its kind when the
    /// kind has several streams and none is, as fftools' `set_dispositions` does: Matroska otherwise
    /// flags none of them default, and a player may then pick none (cover art does not count).
    public static func markDefaults(in output: UnsafeMutablePointer<AVFormatContext>) {
        let streams = (0..<Int(output.pointee.nb_streams)).map { output.pointee.streams[$0]! }.filter {
            $0.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }
        for kind in [AVMEDIA_TYPE_AUDIO, AVMEDIA_TYPE_VIDEO] {
            let ofKind = streams.filter { $0.pointee.codecpar.pointee.codec_type == kind }
            guard ofKind.count > 1, !ofKind.contains(where: { $0.pointee.disposition & AV_DISPOSITION_DEFAULT != 0 })
            else { continue }
            ofKind[0].pointee.disposition |= AV_DISPOSITION_DEFAULT
        }
    }
}
