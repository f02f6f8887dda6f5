import Determinism
import LosslessJSON
import Soups

/// The random operations and their operands. Values are drawn from small pools so that
/// records collide on index values, external ids and tokens, and so that every type meets
/// every index type (numbers in string indexes, text in numeric ones, nulls, arrays).
extension SoupModelRun {
    static let names: [JSONValue] = [
        "Acme", "acme", "ACME", "Bolt", "école", "École", "ecole", "中文", "中", "a_b", "100%", "a\u{0}b", "", "Zed",
        42, 3.5, -7, true, false, nil,
    ]
    static let amounts: [JSONValue] = [-5, 0, 1, 2, 3, 10, 2.5, -0.5, 1e20, -1e20, "7", "x", true, nil, 100]
    static let words = ["red", "fox", "Blue", "FOX", "renard", "café", "Café", "über", "中文", "42", "redder", "re"]
    static let specPool = [
        IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string),
        IndexSpec(path: "Name", type: .fullText), IndexSpec(path: "Amount", type: .integer),
        IndexSpec(path: "Amount", type: .floating), IndexSpec(path: "Amount", type: .json1),
        IndexSpec(path: "Score", type: .floating), IndexSpec(path: "Owner.Name", type: .json1),
        IndexSpec(path: "Tags.label", type: .string), IndexSpec(path: "Note", type: .fullText),
        IndexSpec(path: "__local__", type: .string), IndexSpec(path: "Id", type: .json1),
    ]
    static let paths = [
        "Id", "Name", "Amount", "Score", "Owner.Name", "Tags.label", "Note", "__local__", "Owner", "Nope",
    ]
    static let likePatterns = [
        "%", "a%", "%E", "_cole", "é%", "%中%", "acme", "%1%", "a_b", "%x%", "", "_", "%.5", "t%",
    ]
    static let matchExpressions = [
        "fox", "red fox", "re*", "fox OR café", "fox NOT red", "(red OR blue) AND fox", "\"red fox\"", "CAFÉ", "über",
        "中文", "4*", "a OR", "r* NOT redder", "nothing", "\"fox red*\"", "red-fox", "{accounts:Note}:fox",
        "{notes:Name}:re* OR {notes:Note}:\"red fox\"", "{contacts:Note}:(red NOT fox)", "{contacts:Id}:x",
        "{accounts:Nope}:fox", "{other:Note}:fox", "{accounts:Note}:{accounts:Name}:fox", "{Note}:fox",
    ]

    // MARK: - Operations

    mutating func randomOperation() throws {
        // A copy: the closures below run while `self` is being mutated.
        let store = self.store
        let soup = pick(Self.soupNames + ["nope"])
        let now = fixture.clock.now()
        switch int(0..<100) {
        case 0..<22:
            let records = (0..<int(1..<5)).map { _ in chance(0.03) ? JSONValue.string("text") : record() }
            try perform(
                "create in \(soup)", store: { try store.create(soup, records) },
                model: {
                    try $0.create(soup, records, at: now)
                })
        case 22..<32:
            let entryId = existingId(soup)
            let record = record()
            try perform(
                "update \(entryId) in \(soup)", store: { try store.update(soup, record, entryId: entryId) },
                model: {
                    try $0.update(soup, record, entryId: entryId, at: now)
                })
        case 32..<46:
            try randomUpsert(soup, at: now)
        case 46..<54:
            let ids = (0..<int(1..<4)).map { _ in existingId(soup) }
            try performAction(
                "delete \(ids) from \(soup)", store: { try store.delete(soup, ids: ids) },
                model: {
                    try $0.delete(soup, ids: ids)
                })
        case 54..<58:
            let spec = randomSpec(soup: soup)
            try perform(
                "delete by \(spec)", store: { try store.deleteByQuery(spec) }, model: { try $0.deleteByQuery(spec) })
        case 58..<90:
            try randomLocalChange(soup, at: now)
        default:
            try randomSoupChange(soup)
        }
    }

    private mutating func randomUpsert(_ soup: String, at now: WallTime) throws {
        // A copy: the closures below run while `self` is being mutated.
        let store = self.store
        let path = chance(0.5) ? pick(["Id", "Name", "Amount", "_soupEntryId", "Nope", "Owner.Name"]) : nil
        let records = (0..<int(1..<4)).map { _ in
            var record = self.record()
            if path == nil, chance(0.5), case .object(var fields) = record {
                fields[SoupStore.entryIdField] = .number(JSONNumber(existingId(soup)))
                record = .object(fields)
            }
            return chance(0.02) ? JSONValue.array([record]) : record
        }
        try perform(
            "upsert by \(path ?? "-") in \(soup)", store: { try store.upsert(soup, records, externalIdPath: path) },
            model: { try $0.upsert(soup, records, externalIdPath: path, at: now) }
        )
    }

    private mutating func randomLocalChange(_ soup: String, at now: WallTime) throws {
        // A copy: the closures below run while `self` is being mutated.
        let store = self.store
        let entryId = existingId(soup)
        switch int(0..<3) {
        case 0:
            var record = self.record()
            if chance(0.5), case .object(var fields) = record {
                fields["Id"] = nil
                record = .object(fields)
            }
            // The store draws a local id for an object without one, whether or not the create succeeds.
            let localId = nextLocalId
            if case .object(let fields) = record, fields["Id"] == nil { nextLocalId += 1 }
            try perform(
                "create locally in \(soup)", store: { try store.createLocally(soup, record) },
                model: {
                    try $0.createLocally(soup, record, localId: localId, at: now)
                })
        case 1:
            let changes = ["Name": pick(Self.names), "Amount": pick(Self.amounts)]
            try perform(
                "update locally \(entryId) in \(soup)",
                store: { try store.updateLocally(soup, entryId: entryId, changes: changes) },
                model: { try $0.changeLocally(soup, entryId: entryId, changes: changes, at: now) }
            )
        default:
            try perform(
                "delete locally \(entryId) in \(soup)", store: { try store.deleteLocally(soup, entryId: entryId) },
                model: { try $0.changeLocally(soup, entryId: entryId, changes: nil, at: now) }
            )
        }
    }

    private mutating func randomSoupChange(_ soup: String) throws {
        // A copy: the closures below run while `self` is being mutated.
        let store = self.store
        switch int(0..<10) {
        case 0..<4:
            let specs = chance(0.05) ? [] : randomSpecs()
            let reIndex = chance(0.5)
            try performAction(
                "alter \(soup) to \(specs) re-indexing \(reIndex)",
                store: { try store.alterSoup(soup, indexSpecs: specs, reIndex: reIndex) },
                model: { try $0.alter(soup, specs, reIndex: reIndex) }
            )
        case 4..<6:
            let paths = [pick(Self.paths)]
            try performAction(
                "re-index \(paths) of \(soup)", store: { try store.reIndexSoup(soup, paths: paths) },
                model: {
                    try $0.reIndex(soup, paths: paths)
                })
        case 6..<8:
            try performAction("clear \(soup)", store: { try store.clearSoup(soup) }, model: { try $0.clear(soup) })
        case 8:
            try performAction("drop \(soup)", store: { try store.dropSoup(soup) }, model: { $0.drop(soup) })
        default:
            let specs = chance(0.1) ? [] : randomSpecs()
            try performAction(
                "register \(soup)", store: { try store.registerSoup(soup, indexSpecs: specs) },
                model: {
                    try $0.register(soup, specs)
                })
        }
    }

    // MARK: - Operands

    mutating func record() -> JSONValue {
        var fields: [String: JSONValue] = [:]
        if chance(0.85) { fields["Id"] = .string("id\(int(0..<150))") }
        if chance(0.9) { fields["Name"] = pick(Self.names) }
        if chance(0.9) { fields["Amount"] = pick(Self.amounts) }
        if chance(0.7) { fields["Score"] = .number(JSONNumber(Double(int(-50..<50)) / 4)) }
        if chance(0.6) { fields["Owner"] = chance(0.9) ? ["Name": pick(Self.names)] : pick(Self.names) }
        if chance(0.5) {
            fields["Tags"] = .array((0..<int(0..<4)).map { _ in chance(0.8) ? ["label": pick(Self.names)] : [:] })
        }
        if chance(0.7) {
            let text = (0..<int(0..<5)).map { _ in pick(Self.words) }.joined(separator: pick([" ", ", ", "-", "."]))
            fields["Note"] = .string(text)
        }
        return .object(fields)
    }

    mutating func randomSpecs() -> [IndexSpec] {
        var pool = Self.specPool
        var specs: [IndexSpec] = []
        for _ in 0..<int(1..<6) {
            specs.append(pool.remove(at: int(0..<pool.count)))
        }
        return specs
    }

    mutating func randomSpec(soup: String) -> QuerySpec {
        let path = pick(Self.paths)
        let values = Self.names + Self.amounts + ["id1", "id7", "id100"]
        let filter: QuerySpec.Filter =
            switch int(0..<5) {
            case 0: .all
            case 1: .exact(path: path, value: pick(values))
            case 2:
                // `JSONValue?.none`, not `nil`, which would be read as JSON null: an open end.
                .range(
                    path: path, lower: chance(0.7) ? pick(values) : JSONValue?.none,
                    upper: chance(0.7) ? pick(values) : JSONValue?.none)
            case 3: .like(path: path, pattern: pick(Self.likePatterns))
            default:
                .match(path: chance(0.5) ? nil : pick(["Note", "Name", "Id"]), expression: pick(Self.matchExpressions))
            }
        let pageSize = chance(0.01) ? pick([0, QuerySpec.pageSizeMax + 1]) : int(1..<9)
        let selectPaths = chance(0.2) ? (0..<int(1..<4)).map { _ in pick(Self.paths + ["Tags", "_soupEntryId"]) } : nil
        return QuerySpec(
            soupName: soup, filter: filter, orderPath: chance(0.3) ? nil : pick(Self.paths),
            order: chance(0.5) ? .ascending : .descending, pageSize: pageSize, selectPaths: selectPaths)
    }

    mutating func pageIndex() -> Int {
        chance(0.01) ? -1 : int(0..<4)
    }

    /// The id of a record of `soup`, or now and then one that is not there.
    mutating func existingId(_ soup: String) -> Int64 {
        let ids = model.soups[soup]?.records.keys.sorted() ?? []
        guard !ids.isEmpty, chance(0.95) else { return Int64(int(1..<Int(model.nextEntryId) + 2)) }
        return ids[int(0..<ids.count)]
    }

    mutating func int(_ range: Range<Int>) -> Int {
        Int.random(in: range, using: &random)
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    mutating func pick<T>(_ values: [T]) -> T {
        values[int(0..<values.count)]
    }
}
