import CFFmpeg

/// H.264 or H.265 packets from a raw Annex-B file, timed from picture order counts at a fixed frame rate.
///
/// A raw stream has no timestamps, and libav's parser gives none that respect B-frame reordering, so the
/// file is read twice. The first pass splits it into access units with libav's parser and computes each
/// picture's order count with mediad's own parser, keeping only a few bytes per access unit. The second
/// pass reads the same access units again and delivers them with pts/dts from a `PresentationTimeline`,
/// in a time base of one tick per frame. Access units without a picture are merged into the next
/// picture's packet, or dropped when they hold only delimiters or nothing follows them.
public final class AnnexBVideoSource: PacketSource {
    /// What the second pass does with one access unit of the first.
    private enum Plan {
        case picture
        case carryForward
        case drop
    }

    public let codec: InputContainer
    public let timeline: PresentationTimeline
    /// Access units after the last picture that held more than delimiters; they are dropped.
    public let droppedUnits: Int
    private let pictures: [PictureOrder]
    private let plans: [Plan]
    private let sizes: [Int32]
    private let input: InputFile
    private let frameTimeBase: AVRational
    private var unitIndex = 0
    private var pictureIndex = 0
    private var carried: [UInt8] = []

    /// Analyses `path` (an `.h264` or `.hevc` container) shown at `frameRate` frames per second.
    /// `scanned` is called during the first pass with the bytes read so far and may throw to stop it.
    public init(
        path: String, codec: InputContainer, frameRate: AVRational, scanned: (Int64) throws -> Void = { _ in }
    ) throws {
        self.codec = codec
        frameTimeBase = av_inv_q(frameRate)
        var plans: [Plan] = []
        var sizes: [Int32] = []
        var pictures: [PictureOrder] = []
        let scan = try InputFile(path: path, container: codec, policy: .elementaryStreams)
        var parser: any PictureOrderParser = codec == .hevc ? HEVCPictureOrder() : H264PictureOrder()
        let packet = Packet()
        while try scan.read(into: packet) {
            let unit: AccessUnitInfo
            do {
                unit = try parser.parse(accessUnit: packet.data)
            } catch let error as MediaError where error.code == .invalidInput {
                throw MediaError(
                    .invalidInput,
                    "cannot read access unit \(plans.count) (byte \(packet.pointer.pointee.pos)) of the "
                        + "\(codec.displayName) input: \(error.message)")
            }
            if let picture = unit.picture {
                pictures.append(picture)
                plans.append(.picture)
            } else {
                plans.append(unit.isDisposable ? .drop : .carryForward)
            }
            sizes.append(Int32(packet.size))
            try scanned(scan.position)
        }
        guard !pictures.isEmpty else {
            throw MediaError(.missingStream, "the \(codec.displayName) input contains no pictures")
        }
        let trailing = (plans.lastIndex(of: .picture)! + 1)..<plans.count
        droppedUnits = plans[trailing].filter { $0 == .carryForward }.count
        for index in trailing { plans[index] = .drop }
        self.pictures = pictures
        self.plans = plans
        self.sizes = sizes
        timeline = PresentationTimeline(pictures: pictures)
        input = try InputFile(path: path, container: codec, policy: .elementaryStreams)
        try input.findStreamInfo()
        try checkStream()
    }

    private func checkStream() throws {
        guard input.streamCount == 1, let parameters = input.stream(0).pointee.codecpar,
            parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        else { throw MediaError(.missingStream, "the \(codec.displayName) input has no video stream") }
        guard parameters.pointee.width > 0, parameters.pointee.height > 0 else {
            throw MediaError(.invalidInput, "the \(codec.displayName) input does not state its picture size")
        }
    }

    public var codecParameters: UnsafePointer<AVCodecParameters> { UnsafePointer(input.stream(0).pointee.codecpar) }
    public var timeBase: AVRational { frameTimeBase }
    /// Both passes count: the file is read twice.
    public var bytesRead: Int64 { input.size + input.position }
    public var totalBytes: Int64 { 2 * input.size }
    public var pictureCount: Int { pictures.count }

    /// Bits per second of the access units written, at the frame rate given.
    public var averageBitRate: Int64 {
        let bytes = zip(plans, sizes).reduce(Int64(0)) { $0 + ($1.0 == .drop ? 0 : Int64($1.1)) }
        let seconds = av_q2d(frameTimeBase) * Double(pictures.count)
        return Int64(Double(bytes * 8) / seconds)
    }

    public func read(into packet: Packet) throws -> Bool {
        while try input.read(into: packet) {
            guard unitIndex < plans.count, sizes[unitIndex] == Int32(packet.size) else {
                throw MediaError(.internalError, "the \(codec.displayName) input split differently on the second pass")
            }
            let plan = plans[unitIndex]
            unitIndex += 1
            switch plan {
            case .drop:
                continue
            case .carryForward:
                carried.append(contentsOf: packet.data)
            case .picture:
                if !carried.isEmpty {
                    try packet.setData(carried + Array(packet.data))
                    carried = []
                }
                packet.streamIndex = 0
                packet.pts = timeline.pts[pictureIndex]
                packet.dts = timeline.dts[pictureIndex]
                packet.duration = 1
                packet.isKeyframe = pictures[pictureIndex].isKeyframe
                pictureIndex += 1
                return true
            }
        }
        guard unitIndex == plans.count else {
            throw MediaError(.internalError, "the \(codec.displayName) input ended early on the second pass")
        }
        return false
    }
}
