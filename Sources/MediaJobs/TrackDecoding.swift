import CFFmpeg
import MediaCore

/// Decodes one track of an input from its current position to the end, handing every frame to a closure:
/// the read–send–receive loop of decode, waveform and probe's loudness.
///
/// Damaged packets (a last frame cut short, a corrupt slice) are skipped and counted, as a player skips
/// them; the caller decides what a count means for its output.
final class TrackDecoding {
    let file: InputFile
    let stream: UnsafeMutablePointer<AVStream>
    let decoder: Decoder
    /// Packets or frames the decoder refused as invalid data so far.
    private(set) var damagedPackets = 0
    private let packet = Packet()
    private let frame = Frame()

    init(file: InputFile, stream: UnsafeMutablePointer<AVStream>) throws {
        self.file = file
        self.stream = stream
        decoder = try Decoder(stream: stream, of: file)
    }

    /// Reads packets to the end of the file, decodes those of the track, drains the decoder, and calls
    /// `handle` with each frame (valid only during the call). Checks for cancellation and reports the share
    /// of the file read, through `progress`, between packets.
    func run(
        _ context: JobContext, progress: (Double) -> Double = { $0 }, handle: (Frame) throws -> Void
    ) throws {
        let index = Int(stream.pointee.index)
        while try file.read(into: packet) {
            guard packet.streamIndex == index else { continue }
            try context.checkpoint()
            do {
                try decoder.send(packet)
            } catch let error as MediaError where error.code == .invalidInput {
                damagedPackets += 1
            }
            try drain(handle)
            context.reportProgress(progress(file.progress))
        }
        try decoder.send(nil)
        try drain(handle)
    }

    private func drain(_ handle: (Frame) throws -> Void) throws {
        while true {
            do {
                guard try decoder.receive(into: frame) else { return }
            } catch let error as MediaError where error.code == .invalidInput {
                damagedPackets += 1
                return
            }
            try handle(frame)
        }
    }
}
