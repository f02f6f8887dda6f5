import Determinism
import EventJournal
public import Foundation
import LMDBStore
import MobileSync
import SalesforceSimulator

/// A recorded session on disk, `Journals/<area>/<case>/`, and its two replays.
///
/// - **Projection replay** imports `session.jsonl` into a fresh store and compares the
///   projections with `expected-projections.json`.
/// - **Engine replay** runs `operations.json` through the sync engine against a
///   ``ReplayTransport`` serving `exchanges.jsonl`: every request must be the recorded one, in
///   order, and the journal and projections must come out byte-identical to `session.jsonl`
///   and `expected-projections.json`.
///
/// ```swift
/// try await RecordedSession(directory: journals.appending(path: "sync-down/paging")).replay()
/// ```
public struct RecordedSession: Sendable {
    /// The case directory.
    public let directory: URL

    /// A session stored in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    // MARK: - Recording

    /// Runs `scenario` against a fresh simulator and writes its four files into `directory`.
    ///
    /// - Returns: the recorded session.
    /// - Throws: ``SessionReplayError/Code/operationFailed`` when an operation fails, or a file error.
    @discardableResult
    public static func record(_ scenario: SessionCase, into directory: URL) async throws -> RecordedSession {
        let scratch = try ScratchDirectory("session-record")
        defer { scratch.remove() }
        let recorder = RecordingTransport(SimulatorTransport(try scenario.makeSimulator()))
        let runner = SessionRunner(
            script: scenario.script, storeDirectory: scratch.appending("store"), transport: recorder)
        let store = try await runner.run()
        let report = try store.journal.verify()
        guard report.isConsistent else {
            throw SessionReplayError(.operationFailed, "the recorded store fails verify: \(report.divergences)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let files: [(String, Data)] = [
            (SessionFiles.operations, try scenario.script.encoded()),
            (SessionFiles.exchanges, Data(try recorder.exchanges.flatMap { try $0.line() })),
            (SessionFiles.session, try Self.export(store.journal)),
            (SessionFiles.expectedProjections, try ProjectionSnapshot(store.journal).encoded()),
        ]
        for (name, data) in files { try data.write(to: directory.appendingPathComponent(name), options: .atomic) }
        return RecordedSession(directory: directory)
    }

    // MARK: - Replaying

    /// What a successful replay went through.
    public struct Report: Sendable, Hashable {
        /// The recorded requests the engine sent again.
        public var requestCount: Int
        /// The journal entries both replays produced.
        public var entryCount: UInt64
    }

    /// Runs the projection replay, then the engine replay.
    ///
    /// - Returns: how many requests and entries were replayed.
    /// - Throws: ``SessionReplayError``: a divergence naming the first differing request,
    ///   journal entry or projection key, or a missing or malformed file.
    @discardableResult
    public func replay() async throws -> Report {
        try replayProjections()
        return try await replayEngine()
    }

    /// Imports `session.jsonl` into a fresh store and compares its projections with
    /// `expected-projections.json`.
    public func replayProjections() throws {
        let expected = try read(SessionFiles.expectedProjections)
        let sessionFile = try existingFile(SessionFiles.session)
        let scratch = try ScratchDirectory("session-projections")
        defer { scratch.remove() }
        let store = try Self.scratchStore(scratch)
        do {
            try store.journal.importEntries(from: sessionFile)
        } catch let error as JournalError where error.code == .malformedExport {
            throw SessionReplayError(.malformedFile, "\(SessionFiles.session): \(error.message)", cause: error)
        }
        try ProjectionSnapshot(store.journal).check(against: expected, what: "projection replay")
    }

    /// Runs the operations through the engine against the recorded answers and compares the
    /// requests, the journal and the projections with the recording.
    @discardableResult
    public func replayEngine() async throws -> Report {
        let script = try SessionScript.decode(try read(SessionFiles.operations))
        let transport = ReplayTransport(try RecordedExchange.parseLines(try read(SessionFiles.exchanges)))
        let expectedSession = try read(SessionFiles.session)
        let expectedProjections = try read(SessionFiles.expectedProjections)
        let scratch = try ScratchDirectory("session-engine")
        defer { scratch.remove() }
        let runner = SessionRunner(script: script, storeDirectory: scratch.appending("store"), transport: transport)
        let store = try await runner.run { _ in
            if let divergence = transport.divergence { throw divergence }
        }
        try transport.checkFinished()
        try Self.compareJournal(try Self.export(store.journal), expected: expectedSession)
        try ProjectionSnapshot(store.journal).check(against: expectedProjections, what: "engine replay")
        return Report(requestCount: transport.servedCount, entryCount: try store.journal.lastSequence())
    }

    // MARK: - Files

    /// The case directories under `journals`, as `area/name` paths, sorted.
    ///
    /// A case is any directory two levels down; one that lacks a file fails its replay rather
    /// than being skipped.
    public static func casePaths(in journals: URL) -> [String] {
        let manager = FileManager.default
        func directories(_ url: URL) -> [String] {
            let names = (try? manager.contentsOfDirectory(atPath: url.path)) ?? []
            return names.filter { name in
                var isDirectory: ObjCBool = false
                return !name.hasPrefix(".")
                    && manager.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory)
                    && isDirectory.boolValue
            }
        }
        return directories(journals).flatMap { area in
            directories(journals.appendingPathComponent(area)).map { "\(area)/\($0)" }
        }.sorted()
    }

    private func existingFile(_ name: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw SessionReplayError(.missingFile, "no session directory at \(directory.path)")
        }
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SessionReplayError(
                .missingFile, "\(directory.path) has no \(name); record the case with JOURNALS_RECORD=missing")
        }
        return url
    }

    private func read(_ name: String) throws -> Data {
        let url = try existingFile(name)
        do {
            return try Data(contentsOf: url)
        } catch {
            throw SessionReplayError(.missingFile, "cannot read \(url.path): \(error)", cause: error)
        }
    }

    static func scratchStore(_ scratch: ScratchDirectory) throws -> SyncStore {
        var options = JournalOptions()
        options.environment.flushesOnCommit = false
        return try SyncStore(
            directory: scratch.appending("store"), clock: ManualWallClock(), options: options, logger: .discarding)
    }

    static func export(_ journal: Journal) throws -> Data {
        var bytes: [UInt8] = []
        try journal.export { line in bytes += line }
        return Data(bytes)
    }

    /// Throws ``SessionReplayError/Code/journalDiverged`` naming the first entry that differs.
    static func compareJournal(_ actual: Data, expected: Data) throws {
        guard actual != expected else { return }
        let newline = UInt8(ascii: "\n")
        let actualLines = actual.split(separator: newline)
        let expectedLines = expected.split(separator: newline)
        let index = zip(actualLines, expectedLines).prefix { $0 == $1 }.count
        func excerpt(_ lines: [Data], _ other: [Data]) -> String {
            guard index < lines.count else { return "nothing" }
            let line = Array(lines[index])
            let offset = index < other.count ? zip(line, Array(other[index])).prefix { $0 == $1 }.count : 0
            let slice = line[max(0, offset - 30)..<min(line.count, offset + 50)]
            return "\"…" + String(decoding: slice, as: UTF8.self) + "…\""
        }
        throw SessionReplayError(
            .journalDiverged,
            "engine replay: journal entry \(index + 1) differs from \(SessionFiles.session) line \(index + 1): "
                + "replayed \(excerpt(actualLines, expectedLines)), recorded \(excerpt(expectedLines, actualLines))")
    }
}
