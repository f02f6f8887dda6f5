public import LMDBStore
import Logging

extension Journal {
    /// Rebuilds every projection from the entries, in place.
    ///
    /// The projections are emptied and the whole journal folded again, in transactions of
    /// ``JournalOptions/rebuildBatchSize`` entries. Appends wait until it is done. A crash
    /// part-way leaves a marker, and the next open rebuilds again, so a half-built projection
    /// is never taken for a finished one.
    /// - Parameter progress: called after each batch with (entries folded, entries in total).
    public func rebuild(progress: ((_ folded: UInt64, _ total: UInt64) -> Void)? = nil) throws {
        try rebuild(projections, progress: progress)
    }

    /// Folds the entries `1...sequence` into fresh projection databases in `destination`.
    ///
    /// This materializes the projections as they were right after entry `sequence`, without
    /// touching this journal's own state. `destination` should be empty.
    /// - Returns: the number of entries folded.
    @discardableResult
    public func rebuild(
        upTo sequence: UInt64, into destination: Environment,
        progress: ((_ folded: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws -> UInt64 {
        try read { reader in
            try fold(from: reader, upTo: min(sequence, try reader.lastSequence), into: destination, progress: progress)
                .folded
        }
    }

    /// The result of folding into another environment: how many entries, their kinds, and the
    /// destination's handles for each projection database.
    struct FoldResult {
        var folded: UInt64
        var kindCounts: [JournalEntry.Kind: UInt64]
        var databases: [String: Database]
    }

    /// Folds entries `first...last` into `destination`, whose projection databases must hold
    /// the state as of `first - 1` (empty for `first == 1`).
    ///
    /// - Parameters:
    ///   - boundary: batches end at multiples of it, and `reachedBoundary` is called there,
    ///     so callers can snapshot the destination at round sequences.
    func fold(
        from reader: JournalReader, startingAt first: UInt64 = 1, upTo last: UInt64, into destination: Environment,
        boundary: UInt64? = nil, reachedBoundary: ((UInt64) throws -> Void)? = nil,
        progress: ((UInt64, UInt64) -> Void)?
    ) throws -> FoldResult {
        var databases: [String: Database] = [:]
        for name in projectionDatabases.keys {
            databases[name] = try destination.database(named: name)
        }
        var result = FoldResult(folded: first - 1, kindCounts: [:], databases: databases)
        var next = first
        let batchSize = UInt64(max(1, options.rebuildBatchSize))
        while next <= last {
            var batchEnd = min(last, next + batchSize - 1)
            if let boundary, boundary > 0 {
                batchEnd = min(batchEnd, (next / boundary + 1) * boundary)
            }
            let batch = try reader.entries(in: next...batchEnd)
            guard batch.count == Int(batchEnd - next + 1) else {
                throw JournalError(.gap, "journal entries \(next)...\(batchEnd) are incomplete", sequence: next)
            }
            try destination.write { transaction in
                let context = ProjectionContext(transaction: transaction, databases: databases)
                for entry in batch {
                    for projection in projections { try projection.apply(entry, in: context) }
                }
            }
            for entry in batch { result.kindCounts[entry.kind, default: 0] += 1 }
            result.folded = batchEnd
            if let boundary, boundary > 0, batchEnd % boundary == 0 { try reachedBoundary?(batchEnd) }
            progress?(batchEnd, last)
            next = batchEnd + 1
        }
        return result
    }

    func rebuild(_ selected: [any Projection], progress: ((UInt64, UInt64) -> Void)?) throws {
        guard !selected.isEmpty else { return }
        let names = selected.map(\.name)
        logger.info("rebuilding projections", metadata: ["journal.projections": "\(names.joined(separator: ","))"])
        try appendGate.withExclusiveLock {
            try refold(selected, names: names, progress: progress)
        }
    }

    private func refold(_ selected: [any Projection], names: [String], progress: ((UInt64, UInt64) -> Void)?) throws {
        try Self.guarded("cannot rebuild projections") {
            try environment.write { transaction in
                let context = projectionContext(transaction)
                try transaction.put(meta, key: Self.rebuildMarkerKey, value: Array(names.joined(separator: "\n").utf8))
                for projection in selected { try projection.reset(in: context) }
            }
            let last = try lastSequence()
            var next: UInt64 = 1
            let batchSize = UInt64(max(1, options.rebuildBatchSize))
            while next <= last {
                let batchEnd = min(last, next + batchSize - 1)
                try environment.write { transaction in
                    let context = projectionContext(transaction)
                    try JournalReader(transaction: transaction, journal: self).forEachEntry(in: next...batchEnd) {
                        entry in
                        for projection in selected { try projection.apply(entry, in: context) }
                        return true
                    }
                }
                progress?(batchEnd, last)
                next = batchEnd + 1
            }
            try environment.write { transaction in
                for projection in selected {
                    try transaction.put(
                        meta, key: Self.versionKey(of: projection),
                        value: SequenceKey.encode(UInt64(projection.version)))
                }
                try transaction.delete(meta, key: Self.rebuildMarkerKey)
            }
        }
    }

    /// On open: rebuild projections whose version changed, that are new on a non-empty
    /// journal, or whose rebuild a crash interrupted.
    func rebuildStaleProjections() throws {
        let stale: [any Projection] = try Self.guarded("cannot read projection versions") {
            try environment.read { transaction in
                let interrupted = try transaction.get(meta, key: Self.rebuildMarkerKey) != nil
                return try projections.filter { projection in
                    let stored = try transaction.get(meta, key: Self.versionKey(of: projection)).flatMap(
                        SequenceKey.decode)
                    return interrupted || stored != UInt64(projection.version)
                }
            }
        }
        guard !stale.isEmpty else { return }
        if try lastSequence() == 0 {
            // Nothing to fold: just record the versions.
            try Self.guarded("cannot record projection versions") {
                try environment.write { transaction in
                    for projection in stale {
                        try transaction.put(
                            meta, key: Self.versionKey(of: projection),
                            value: SequenceKey.encode(UInt64(projection.version)))
                    }
                }
            }
            return
        }
        try rebuild(stale, progress: nil)
    }

    static func versionKey(of projection: any Projection) -> [UInt8] {
        Array("projection-version/\(projection.name)".utf8)
    }
}
