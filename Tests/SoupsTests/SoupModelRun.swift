import Determinism
import EventJournal
import LosslessJSON
import Soups

/// One seeded run of random operations against a ``SoupStore`` and a ``SoupModel`` side by
/// side; any difference in a result, an error code or the journal stops the run.
struct SoupModelRun {
    /// A difference between the store and the model.
    struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    let seed: UInt64
    let fixture: SoupFixture
    var model = SoupModel()
    var random: SplitMix64
    var step = 0
    /// The next number the store's `IncrementingIDGenerator` gives for a local id.
    var nextLocalId: UInt64 = 1
    /// How many operations failed with the same error on both sides, and how many queries
    /// were compared: a run that compares nothing proves nothing.
    private(set) var failedOperationCount = 0
    private(set) var queryCount = 0

    static let soupNames = ["accounts", "contacts", "notes"]

    init(seed: UInt64, fixture: SoupFixture) {
        self.seed = seed
        self.fixture = fixture
        random = SplitMix64(seed: seed)
    }

    var store: SoupStore {
        fixture.store
    }

    /// Runs `operationCount` random operations, comparing a few random queries after each
    /// and every query shape over every soup every `sweepInterval` operations.
    mutating func run(operationCount: Int, sweepInterval: Int) throws {
        let store = self.store
        for name in Self.soupNames {
            let specs = randomSpecs()
            try performAction(
                "register \(name)", store: { try store.registerSoup(name, indexSpecs: specs) },
                model: {
                    try $0.register(name, specs)
                })
        }
        for _ in 0..<operationCount {
            step += 1
            fixture.clock.advance(by: .milliseconds(1))
            try randomOperation()
            for _ in 0..<3 { try compareQuery(randomSpec(soup: pick(Self.soupNames)), pageIndex: pageIndex()) }
            try compareLookups(soup: pick(Self.soupNames))
            if step % sweepInterval == 0 { try sweep() }
        }
        try sweep()
    }

    /// Compares whole result sets of many queries on every soup, and the catalog.
    mutating func sweep() throws {
        try compare("soup names", store.soupNames(), model.soupNames)
        for name in model.soupNames {
            try compare("index specs of \(name)", store.indexSpecs(of: name), model.indexSpecs(name))
            try compare("dirty records of \(name)", store.dirtyRecords(name), model.dirtyRecords(name))
            for _ in 0..<40 {
                var spec = randomSpec(soup: name)
                spec.pageSize = 1000
                try compareQuery(spec, pageIndex: 0)
            }
        }
    }

    // MARK: - Comparing

    /// Runs a mutation on both sides: both succeed with equal results, or both fail with the
    /// same code and the store appends nothing.
    mutating func perform<T: Equatable>(
        _ what: @autoclosure () -> String = "operation", store operation: () throws -> T,
        model change: (inout SoupModel) throws -> T
    ) throws {
        let sequence = try fixture.journal.lastSequence()
        var next = model
        let expected = Self.outcome { try change(&next) }
        let actual = Self.outcome(operation)
        switch (actual, expected) {
        case (.success(let stored), .success(let modelled)):
            try compare(what(), stored, modelled)
            model = next
        case (.failure(let stored), .failure(let modelled)):
            guard stored.code == modelled.code else {
                throw Mismatch(description: "step \(step) \(what()): store threw \(stored), model \(modelled.code)")
            }
            let after = try fixture.journal.lastSequence()
            guard after == sequence else {
                throw Mismatch(
                    description: "step \(step) \(what()) failed but appended entries \(sequence + 1)...\(after)")
            }
            failedOperationCount += 1
        case (.success(let stored), .failure(let modelled)):
            throw Mismatch(description: "step \(step) \(what()): store gave \(stored), model threw \(modelled)")
        case (.failure(let stored), .success(let modelled)):
            throw Mismatch(description: "step \(step) \(what()): store threw \(stored), model gave \(modelled)")
        }
    }

    /// ``perform(_:store:model:)`` for operations that return nothing.
    mutating func performAction(
        _ what: @autoclosure () -> String, store operation: () throws -> Void,
        model change: (inout SoupModel) throws -> Void
    ) throws {
        // `true` stands for "done": Void is not Equatable.
        try perform(
            what(),
            store: {
                try operation()
                return true
            },
            model: { (model: inout SoupModel) -> Bool in
                try change(&model)
                return true
            })
    }

    /// Compares `retrieve` of a few ids (some missing) and `lookupSoupEntryId`.
    /// Compares `retrieve` of a few ids (some missing) and `lookupSoupEntryId`.
    mutating func compareLookups(soup: String) throws {
        let ids = (0..<int(0..<4)).map { _ in existingId(soup) }
        let path = pick(Self.paths)
        let value = pick(Self.names + Self.amounts + ["id1", "id7"])
        let (model, store) = (self.model, self.store)
        try perform(
            "retrieve \(ids) from \(soup)", store: { try store.retrieve(soup, ids: ids) },
            model: { _ in try model.retrieve(soup, ids: ids) })
        try perform(
            "look up \(path) = \(value) in \(soup)",
            store: { try store.lookupSoupEntryId(soup, path: path, value: value) },
            model: { _ in try model.lookupSoupEntryId(soup, path: path, value: value) })
    }

    mutating func compareQuery(_ spec: QuerySpec, pageIndex: Int) throws {
        queryCount += 1
        let (model, store) = (self.model, self.store)
        try perform("query \(spec) page \(pageIndex)") {
            try store.query(spec, pageIndex: pageIndex)
        } model: { _ in
            try model.query(spec, pageIndex: pageIndex)
        }
        try perform("count \(spec)") {
            try store.count(spec)
        } model: { _ in
            try model.count(spec)
        }
    }

    func compare<T: Equatable>(_ what: @autoclosure () -> String, _ stored: T, _ modelled: T) throws {
        guard stored == modelled else {
            throw Mismatch(description: "step \(step) \(what()):\n  store: \(stored)\n  model: \(modelled)")
        }
    }

    private static func outcome<T>(_ operation: () throws -> T) -> Result<T, SoupError> {
        do {
            return .success(try operation())
        } catch let error as SoupError {
            return .failure(error)
        } catch {
            return .failure(SoupError(.storage, "\(error)", cause: error))
        }
    }
}
