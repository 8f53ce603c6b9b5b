import CFFmpeg
import MediaCore

/// The cover art of a remux: the input's attached pictures (an album's or a podcast's artwork), stored the
/// way the target keeps them.
///
/// MP4 and M4A take an attached-picture stream whose single packet libav's mov muxer writes as the `covr`
/// item of the iTunes metadata. Matroska keeps artwork as an attachment named `cover.<ext>`, which players
/// (and libav's demuxer) show as the cover; a one-frame video track would be a track players try to play.
final class CoverArt {
    private let pictures: [UnsafeMutablePointer<AVStream>]
    /// Output stream of each picture in `pictures` that is written as a packet (ISO targets).
    private var packetStreams: [(source: UnsafeMutablePointer<AVStream>, outputIndex: Int)] = []

    init(_ pictures: [UnsafeMutablePointer<AVStream>]) { self.pictures = pictures }

    /// The pictures' size in bytes, which an ISO target stores in its `moov`.
    var byteCount: Int { pictures.reduce(0) { $0 + Int(max(0, $1.pointee.attached_pic.size)) } }

    /// Adds a stream for each picture, after the tracks; call before the header is written.
    func addStreams(to output: OutputFile, format: ContainerFormat) throws {
        for (number, picture) in pictures.enumerated() {
            let parameters = picture.pointee.codecpar!
            if format == .mkv {
                try addAttachment(picture, number: number, to: output)
                continue
            }
            let stream = try output.addStream(copying: parameters, timeBase: picture.pointee.time_base)
            stream.pointee.disposition = AV_DISPOSITION_ATTACHED_PIC
            // No image decoder runs over an upload, so libav's probe leaves the size unknown; the mov muxer
            // needs it, and the image's own header has it.
            let image = picture.pointee.attached_pic
            if stream.pointee.codecpar.pointee.width == 0, let data = image.data,
                let size = ImageSize(header: UnsafeBufferPointer(start: data, count: Int(image.size)))
            {
                stream.pointee.codecpar.pointee.width = Int32(size.width)
                stream.pointee.codecpar.pointee.height = Int32(size.height)
            }
            packetStreams.append((picture, Int(stream.pointee.index)))
        }
    }

    /// Writes the pictures that travel as packets; call right after the header.
    func writePictures(to output: OutputFile) throws {
        for (source, outputIndex) in packetStreams {
            let packet = Packet()
            try LibavError.check(
                av_packet_ref(packet.pointer, &source.pointee.attached_pic), "copying cover art", code: .internalError)
            packet.streamIndex = outputIndex
            packet.pts = 0
            packet.dts = 0
            try output.write(packet)
        }
    }

    private func addAttachment(_ picture: UnsafeMutablePointer<AVStream>, number: Int, to output: OutputFile) throws {
        let image = picture.pointee.attached_pic
        guard image.size > 0, let data = image.data,
            let stream = avformat_new_stream(output.context, nil),
            let extradata = av_mallocz(Int(image.size) + Int(AV_INPUT_BUFFER_PADDING_SIZE))
        else { throw MediaError(.internalError, "cannot copy cover art into an attachment") }
        extradata.copyMemory(from: data, byteCount: Int(image.size))
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_type = AVMEDIA_TYPE_ATTACHMENT
        parameters.pointee.codec_id = picture.pointee.codecpar.pointee.codec_id
        parameters.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
        parameters.pointee.extradata_size = image.size
        let (fileExtension, mimeType) = Self.fileType(of: parameters.pointee.codec_id)
        let name = number == 0 ? "cover.\(fileExtension)" : "cover\(number + 1).\(fileExtension)"
        av_dict_set(&stream.pointee.metadata, "filename", name, 0)
        av_dict_set(&stream.pointee.metadata, "mimetype", mimeType, 0)
    }

    private static func fileType(of codec: AVCodecID) -> (String, String) {
        switch codec {
        case AV_CODEC_ID_PNG: ("png", "image/png")
        case AV_CODEC_ID_BMP: ("bmp", "image/bmp")
        case AV_CODEC_ID_GIF: ("gif", "image/gif")
        default: ("jpg", "image/jpeg")
        }
    }
}
