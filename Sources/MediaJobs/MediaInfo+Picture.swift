import MediaCore

extension MediaInfo {
    /// The first video track that is not cover art: the one transcode, thumbnails and a ladder take.
    var firstPictureTrack: Track? {
        tracks.first { $0.kind == "video" && !($0.disposition ?? []).contains("attached_pic") }
    }

    /// That track's size once turned upright by its display matrix (90° or 270° swap the sides), or as
    /// coded when `upright` is false; nil when the probe states none.
    func pictureSize(upright: Bool) -> (width: Int, height: Int)? {
        guard let track = firstPictureTrack, let width = track.width, let height = track.height else { return nil }
        return upright && (track.rotation ?? 0) % 180 == 90 ? (height, width) : (width, height)
    }
}
