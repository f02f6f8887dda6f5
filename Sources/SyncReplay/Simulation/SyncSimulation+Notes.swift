import EventJournal
import LosslessJSON
import MobileSync
import Soups

// A local soup no sync touches, written at the start of some seeds' runs with more records than
// a soup needs to be compressed (decisions 0030, 0033). Every later step then runs over a store
// that holds a dictionary, `soup.recompressed` batches and compressed values: compactions copy
// them into anchors, power losses rebuild them from a checkpoint and the journal, and `verify`
// after every step compares the rebuilt values with the live ones. Only some seeds carry it, so
// the suite's time grows by a few seeds' worth of larger verifies, not twenty.
extension SyncSimulation {
    static let notesSoup = "notes"
    /// Past `SoupStore.compressionThresholdCount`, so the soup is compressed while it is written.
    static let notesCount = SoupStore.compressionThresholdCount + 100
    /// Records per write: the soup passes the threshold part-way, as an app's soup would.
    static let notesPerWrite = 100

    /// Every seventh seed: of the test's first twenty, 7 (encrypted, odd) and 14 (plaintext).
    var hasNotes: Bool {
        seed % 7 == 0
    }

    /// Writes the notes soup, and fails when the store journaled no dictionary for it.
    func setUpNotes() throws {
        guard hasNotes, let store else { return }
        try store.soups.registerSoup(Self.notesSoup, indexSpecs: [IndexSpec(path: "title", type: .string)])
        for first in stride(from: 0, to: Self.notesCount, by: Self.notesPerWrite) {
            let numbers = first..<min(first + Self.notesPerWrite, Self.notesCount)
            try store.soups.upsert(Self.notesSoup, numbers.map(Self.note))
        }
        guard try store.journal.count(of: SoupEntryKind.dictionary.kind) > 0 else {
            throw InvariantFailure("the notes soup of \(Self.notesCount) records was not given a dictionary")
        }
    }

    /// Fails unless the notes soup holds every note as written, in order.
    func checkNotes() throws {
        guard hasNotes, let store else { return }
        let notes = try store.soups.query(
            QuerySpec.all(Self.notesSoup, orderPath: "_soupEntryId", pageSize: Self.notesCount + 1))
        guard notes.count == Self.notesCount else {
            throw InvariantFailure("the notes soup holds \(notes.count) records, not \(Self.notesCount)")
        }
        for (number, stored) in notes.enumerated() {
            guard case .object(let fields) = stored, case .object(let expected) = Self.note(number),
                expected.allSatisfy({ fields[$0.key] == $0.value })
            else {
                throw InvariantFailure("note \(number) reads \(stored.serializedString)")
            }
        }
    }

    /// Note `number`: fields shared by every note, as an app's records share their shape, and
    /// fields of its own.
    static func note(_ number: Int) -> JSONValue {
        [
            "title": .string("Note \(number)"),
            "body": .string("Call back about order \(number * 7919 % 100_000) before the end of the quarter."),
            "status": .string(["Open", "Waiting", "Done"][number % 3]),
            "priority": .number(JSONNumber(Int64(number % 5))),
        ]
    }
}
