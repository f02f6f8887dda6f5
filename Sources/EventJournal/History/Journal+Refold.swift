package import Foundation

extension Journal {
    /// Folds every entry from the horizon on into `projections`, in a scratch environment thrown
    /// away afterwards: for a fold that reports what it does (a soup fold's trace), not for the
    /// state it leaves. The store is only read.
    ///
    /// A compacted journal is folded from the anchor, the horizon's state, as ``verify(scratchDirectory:checkpointDirectory:checkpointInterval:progress:)`` folds it.
    /// - Parameters:
    ///   - projections: the journal's projections, one of them replaced by a traced equal; each
    ///     with the name and databases of the projection it stands for.
    ///   - scratchDirectory: where to fold; a new directory in the system's temporary directory
    ///     by default. It is removed afterwards.
    /// - Throws: ``JournalError`` when the journal cannot be read or an entry cannot be folded.
    package func refold(into projections: [any Projection], scratchDirectory: URL? = nil) throws {
        let scratch = scratchDirectory ?? Self.scratchDirectoryURL()
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Self.guarded("cannot fold the journal again") {
            let destination = try ProjectionStore(projections: projections, in: scratchEnvironment(scratch))
            try read { reader in
                try startFromHorizon(try reader.horizon, destination)
                _ = try fold(from: reader, upTo: try reader.lastSequence, into: destination, progress: nil)
            }
        }
    }
}
