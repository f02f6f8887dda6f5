/// A position in one database during one transaction.
///
/// Get one with ``Transaction/withCursor(_:_:)``; it is closed when the closure returns. Every
/// move returns a copy of the entry it lands on, or `nil` when it runs off either end. In a
/// sealed database the values it returns are opened (see ``ValueSealer``).
public struct Cursor {
    let pointer: LMDBCalls.Cursor
    /// Opens the values of a sealed database; `nil` when its values are stored as given.
    let sealer: (any ValueSealer)?
    let databaseName: String
    /// What every key and value landed on is checked against before it is read (decision 0027).
    let extent: MappedFileExtent

    /// Moves to the first entry. The corresponding LMDB call is `mdb_cursor_get(MDB_FIRST)`.
    public func first() throws -> (key: [UInt8], value: [UInt8])? {
        try opened(LMDBCalls.cursorGet(pointer, .first, extent))
    }

    /// Moves to the last entry. The corresponding LMDB call is `mdb_cursor_get(MDB_LAST)`.
    public func last() throws -> (key: [UInt8], value: [UInt8])? {
        try opened(LMDBCalls.cursorGet(pointer, .last, extent))
    }

    /// Moves to the last entry and returns only its key, without copying its value.
    /// The corresponding LMDB call is `mdb_cursor_get(MDB_LAST)`.
    public func lastKey() throws -> [UInt8]? {
        try LMDBCalls.cursorGetKey(pointer, .last, extent)
    }

    /// Moves to the next entry. The corresponding LMDB call is `mdb_cursor_get(MDB_NEXT)`.
    public func next() throws -> (key: [UInt8], value: [UInt8])? {
        try opened(LMDBCalls.cursorGet(pointer, .next, extent))
    }

    /// Moves to the previous entry. The corresponding LMDB call is `mdb_cursor_get(MDB_PREV)`.
    public func previous() throws -> (key: [UInt8], value: [UInt8])? {
        try opened(LMDBCalls.cursorGet(pointer, .previous, extent))
    }

    /// Moves to the first entry whose key is `key` or greater.
    /// The corresponding LMDB call is `mdb_cursor_get(MDB_SET_RANGE)`.
    public func seek(atLeast key: [UInt8]) throws -> (key: [UInt8], value: [UInt8])? {
        try opened(LMDBCalls.cursorGet(pointer, .atLeast(key), extent))
    }

    /// Moves to the first entry whose key is `key` or greater and returns only its key,
    /// without copying its value. The corresponding LMDB call is `mdb_cursor_get(MDB_SET_RANGE)`.
    public func seekKey(atLeast key: [UInt8]) throws -> [UInt8]? {
        try LMDBCalls.cursorGetKey(pointer, .atLeast(key), extent)
    }

    /// Deletes the entry under the cursor. The corresponding LMDB call is `mdb_cursor_del`.
    public func deleteCurrent() throws {
        try LMDBCalls.cursorDelete(pointer)
    }

    /// Visits the entries of `range` in key order, or in reverse key order, until `body`
    /// returns `false`.
    ///
    /// - Complexity: O(log n) to find the start, then O(1) per entry visited.
    public func forEach(
        in range: KeyRange = .all, reverse: Bool = false,
        _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool
    ) throws {
        if reverse {
            var entry = try reverseStart(range)
            while let current = entry, !range.isBeforeLowerBound(current.key) {
                guard try body(current.key, current.value) else { return }
                entry = try previous()
            }
        } else {
            var entry = try range.lowerBound.map { try seek(atLeast: $0) } ?? first()
            while let current = entry, !range.isPastUpperBound(current.key) {
                guard try body(current.key, current.value) else { return }
                entry = try next()
            }
        }
    }

    /// Visits the entries of `range` in key order, in place, until `body` returns `false`.
    ///
    /// The buffers point into the memory map and are valid only during `body`: a scan that
    /// decodes each value needs no copy of it. The corresponding LMDB calls are
    /// `mdb_cursor_get(MDB_SET_RANGE)` and `mdb_cursor_get(MDB_NEXT)`.
    /// - Complexity: O(log n) to find the start, then O(1) per entry visited.
    public func forEachInPlace(
        in range: KeyRange = .all, reverse: Bool = false,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        if reverse {
            try forEachInPlaceReversed(range, body)
            return
        }
        var move: LMDBCalls.CursorMove = range.lowerBound.map { .atLeast($0) } ?? .first
        while true {
            let more = try LMDBCalls.cursorVisit(pointer, move, extent) { key, value -> Bool in
                guard !range.isPastUpperBound(key) else { return false }
                return try visit(key, value, body)
            }
            guard more == true else { return }
            move = .next
        }
    }

    /// Visits the keys of `range` in key order, or in reverse key order, in place, until `body`
    /// returns `false`; the values are never opened.
    ///
    /// For a sealed database this skips the value's seal (decryption or checksum), which a walk
    /// that needs only keys, such as a count, would otherwise pay for every entry. A damaged
    /// value is therefore not reported here; the reads that return it report it. The key buffer
    /// points into the memory map and is valid only during `body`. The corresponding LMDB calls
    /// are `mdb_cursor_get(MDB_SET_RANGE)` and `mdb_cursor_get(MDB_NEXT)` forwards, and
    /// `mdb_cursor_get(MDB_LAST)` and `mdb_cursor_get(MDB_PREV)` backwards.
    /// - Parameters:
    ///   - range: the keys to visit; a reversed walk starts at its upper end, as
    ///     ``forEachInPlace(in:reverse:_:)``'s does.
    ///   - reverse: `true` to visit the keys from the last down.
    ///   - body: called with each key; returns `false` to stop the walk.
    /// - Complexity: O(log n) to find the start, then O(1) per key visited.
    public func forEachKeyInPlace(
        in range: KeyRange = .all, reverse: Bool = false, _ body: (_ key: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        if reverse {
            try forEachKeyInPlaceReversed(range, body)
            return
        }
        var move: LMDBCalls.CursorMove = range.lowerBound.map { .atLeast($0) } ?? .first
        while true {
            let more = try LMDBCalls.cursorVisit(pointer, move, extent) { key, _ -> Bool in
                guard !range.isPastUpperBound(key) else { return false }
                return try body(key)
            }
            guard more == true else { return }
            move = .next
        }
    }

    /// Visits the keys of `range` from its upper end down, in place, opening no value.
    private func forEachKeyInPlaceReversed(
        _ range: KeyRange, _ body: (_ key: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try forEachStoredReversed(range) { key, _ in try body(key) }
    }

    /// Visits `range` from its upper end down, in place, opening each value.
    private func forEachInPlaceReversed(
        _ range: KeyRange, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try forEachStoredReversed(range) { key, value in try visit(key, value, body) }
    }

    /// Visits `range` from its upper end down, in place, with each value as stored (sealed, in a
    /// sealed database): the one reversed walk, which the walks of keys and of entries share.
    /// The corresponding LMDB calls are `mdb_cursor_get(MDB_SET_RANGE)`, `mdb_cursor_get(MDB_LAST)`
    /// and `mdb_cursor_get(MDB_PREV)`.
    private func forEachStoredReversed(
        _ range: KeyRange, _ body: (_ key: UnsafeRawBufferPointer, _ stored: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        // Positioned by keys alone: the value under the start is read by the walk, or not at all.
        let positioned: [UInt8]?
        if let upperBound = range.upperBound, let atOrAfter = try seekKey(atLeast: upperBound) {
            positioned =
                range.includesUpperBound && atOrAfter == upperBound
                ? atOrAfter : try LMDBCalls.cursorGetKey(pointer, .previous, extent)
        } else {
            positioned = try lastKey()
        }
        guard positioned != nil else { return }
        var move = LMDBCalls.CursorMove.current
        while true {
            let more = try LMDBCalls.cursorVisit(pointer, move, extent) { key, stored -> Bool in
                guard !range.isBeforeLowerBound(key) else { return false }
                return try body(key, stored)
            }
            guard more == true else { return }
            move = .previous
        }
    }

    /// The last entry inside `range`'s upper end.
    private func reverseStart(_ range: KeyRange) throws -> (key: [UInt8], value: [UInt8])? {
        guard let upperBound = range.upperBound else { return try last() }
        guard let atOrAfter = try seek(atLeast: upperBound) else { return try last() }
        if range.includesUpperBound && atOrAfter.key == upperBound { return atOrAfter }
        return try previous()
    }

    /// The entry with its value opened, in a sealed database.
    private func opened(_ entry: (key: [UInt8], value: [UInt8])?) throws -> (key: [UInt8], value: [UInt8])? {
        guard let sealer, let entry else { return entry }
        let value = try entry.key.withUnsafeBytes { key in
            try entry.value.withUnsafeBytes { sealed in
                try sealer.withOpened(sealed, key: key, database: databaseName) { Array($0) }
            }
        }
        return (entry.key, value)
    }

    /// Calls `body` with the key in place and the value in place or, in a sealed database, opened.
    private func visit(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        guard let sealer else { return try body(key, value) }
        return try sealer.withOpened(value, key: key, database: databaseName) { try body(key, $0) }
    }
}
