import MediaCore

/// The frames gathered for one point: the last one shown before it, kept in case the track ends first,
/// and a filter graph fed with up to `window` frames from the point on.
struct PointFrames {
    /// The point, in the stream's time base.
    let target: Int64
    let window: Int
    /// Builds the graph for frames shaped like the first one it is fed.
    let makeGraph: (Frame) throws -> FilterGraph
    private var before: Frame?
    private var graph: FilterGraph?
    private var latest = Frame()
    private var pushed = 0

    init(target: Int64, window: Int, makeGraph: @escaping (Frame) throws -> FilterGraph) {
        self.target = target
        self.window = window
        self.makeGraph = makeGraph
    }

    /// Whether nothing was found yet: no frame before the point and none from it on.
    var isEmpty: Bool { graph == nil && before == nil }

    /// Reads frames from `seeker` up to the point (keeping the last one) and feeds the graph from it on.
    mutating func read(from seeker: FrameSeeker) throws {
        while pushed < window, try seeker.next(into: latest) {
            if pushed == 0, let shown = latest.bestEffortTimestamp, shown < target {
                let spare = before ?? Frame()
                before = latest
                latest = spare
                continue
            }
            // The seek landed on a keyframe shown after the point: step back and decode up to it.
            if pushed == 0, before == nil, seeker.framesSinceSeek == 1,
                latest.bestEffortTimestamp.map({ $0 > target }) == true, try seeker.retreat()
            {
                continue
            }
            try feed(latest)
        }
    }

    /// The graph with every frame fed and its source finished: the frames from the point on, or the last
    /// one before it when the track ended first; nil when there was no frame at all.
    mutating func finishedGraph() throws -> FilterGraph? {
        if graph == nil, let before { try feed(before) }
        try graph?.finish("in")
        return graph
    }

    private mutating func feed(_ frame: Frame) throws {
        let filters = try graph ?? makeGraph(frame)
        graph = filters
        // The graph keeps the frame's time: the decoder's best guess, which raw streams need.
        frame.pts = frame.bestEffortTimestamp
        try filters.push(frame, to: "in")
        pushed += 1
    }
}
