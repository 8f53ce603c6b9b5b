import ArgumentParser

@main
struct Mediad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediad",
        abstract: "Encode, decode, mux, demux, remux and probe media files with libav."
    )
}
