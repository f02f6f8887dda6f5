extension Journal {
    /// Compares this journal with `other`, entry by entry and projection database by database.
    ///
    /// Entries are compared as decoded values, from the later of the two horizons on (sequence, kind, timestamp, header, payload);
    /// projection databases declared by both journals are compared key by key. Reading both
    /// from one snapshot each, it is safe while either is being appended to.
    /// - Complexity: O(n) in the entries and projection keys of both journals.
    public func difference(from other: Journal) throws -> JournalDifference {
        try read { mine in
            try other.read { theirs in
                let lastMine = try mine.lastSequence
                let lastTheirs = try theirs.lastSequence
                var firstDifferent: UInt64? = lastMine == lastTheirs ? nil : min(lastMine, lastTheirs) + 1
                let common = min(lastMine, lastTheirs)
                // Entries below either horizon were compacted away: the rest is compared.
                let first = max(try mine.firstSequence, try theirs.firstSequence)
                if common >= first {
                    try mine.forEachEntry(in: first...common) { entry in
                        guard try theirs.entry(at: entry.sequence) == entry else {
                            firstDifferent = entry.sequence
                            return false
                        }
                        return true
                    }
                }
                var divergences: [VerificationReport.Divergence] = []
                for name in projectionDatabases.keys.sorted() {
                    guard let myDatabase = projectionDatabases[name],
                        let theirDatabase = other.projectionDatabases[name]
                    else { continue }
                    // Their projection may encode a state otherwise (another build's
                    // compressor): this journal's projection says when two values are the same.
                    let sameState = sameStateCheck(
                        database: name, stored: mine.projectionContext, rebuilt: theirs.projectionContext)
                    if let divergence = try Self.firstDivergence(
                        name, stored: (mine.transaction, myDatabase), rebuilt: (theirs.transaction, theirDatabase),
                        sameState: sameState)
                    {
                        divergences.append(divergence)
                    }
                }
                return JournalDifference(
                    lastSequences: (lastMine, lastTheirs), firstDifferentSequence: firstDifferent,
                    projectionDivergences: divergences)
            }
        }
    }
}
