import Determinism
import Foundation
import JournalInspector
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// The inspector on a real store: 100,000 records, as a new user's first soup of accounts
/// might hold. Every page that lists records pages them on the server, so a first screen is
/// small whatever the soup's size, and paging walks each record exactly once.
@Suite(.serialized) struct InspectorScaleTests {
    static let recordCount = 100_000
    /// The most bytes a first screen of any page may take: the page, its script and style, and
    /// the answers it asks for before it is drawn.
    static let firstScreenBytesMax = 200_000
    static let batchCount = 10_000

    /// A store of ``recordCount`` accounts, each with a long description, saved in batches.
    struct LargeStore {
        let directory: TemporaryDirectory
        let store: SyncStore

        static func make() throws -> LargeStore {
            let directory = try TemporaryDirectory("inspector-scale")
            let store = try SyncStore(
                directory: directory.appending("store"), clock: SystemWallClock(), logger: .discarding)
            try store.soups.registerSoup(
                "accounts", indexSpecs: [IndexSpec(path: "Name", type: .string), IndexSpec(path: "Id", type: .string)])
            let description = String(repeating: "A long note about this account, written by a sales rep. ", count: 8)
            for batch in 0..<(recordCount / batchCount) {
                let records: [JSONValue] = (0..<batchCount).map { offset in
                    let number = batch * batchCount + offset
                    return [
                        "attributes": [
                            "type": "Account", "url": .string("/services/data/v61.0/sobjects/Account/\(number)"),
                        ],
                        "Id": .string("001" + String(number).leftPadded(to: 15)), "Name": .string("Account \(number)"),
                        "Phone": "(555) 010-0000", "Industry": "Energy",
                        "AnnualRevenue": .number(JSONNumber(Int64(number * 1_000))),
                        "Description": .string(description),
                        "LastModifiedDate": "2026-01-01T00:00:00.000Z",
                    ]
                }
                _ = try store.soups.create("accounts", records)
            }
            return LargeStore(directory: directory, store: store)
        }

        func close() {
            try? store.journal.close()
            directory.remove()
        }
    }

    static let token = "0123456789abcdef0123456789abcdef"

    @Test func firstScreensAreSmallAndPagingWalksEveryRecordOnce() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let large = try LargeStore.make()
        defer { large.close() }
        print("inspector scale store built in \(clock.now - started)")
        let server = try await InspectorServer.start(
            large.store, storeName: "store", token: Self.token, logger: .discarding)
        func get(_ target: String) async throws -> LoopbackHTTP.Answer {
            let separator = target.contains("?") ? "&" : "?"
            let answer = try await LoopbackHTTP.get(port: server.port, target + separator + "token=\(Self.token)")
            guard answer.status == 200 else {
                throw LoopbackHTTP.Failure(description: "\(target) answered \(answer.status): \(answer.text)")
            }
            return answer
        }
        do {
            // What each page's first screen fetches: the page, its assets, the follower's info,
            // and the page's own answers.
            let shell = ["/assets/inspector.js", "/assets/inspector.css", "/api/info"]
            let screens: [String: [String]] = [
                "soups": ["/soups", "/api/soups", "/api/soups/accounts/records"],
                "timeline": ["/timeline", "/api/timeline"],
                "syncs": ["/syncs", "/api/syncs"],
                "state": ["/state", "/api/state?soups=summary"],
                "query": ["/soups", "/api/soups", "/api/query?soup=accounts&like=Name%3DAccount%25"],
            ]
            for (name, targets) in screens.sorted(by: { $0.key < $1.key }) {
                var bytes = 0
                for target in shell + targets { bytes += try await get(target).body.count }
                print("inspector first screen at \(Self.recordCount) records: \(name) \(bytes) bytes")
                #expect(bytes <= Self.firstScreenBytesMax, "the \(name) page's first screen takes \(bytes) bytes")
            }

            let soups = try JSONValue(parsing: try await get("/api/soups").body)
            #expect(soups["soups"]?["accounts"]?["recordCount"] == JSONValue(integerLiteral: Int64(Self.recordCount)))

            // Column order: the id, the indexed paths in their specs' order, then the rest by name.
            let first = try JSONValue(parsing: try await get("/api/soups/accounts/records").body)
            let columns = first["columns"]?.array?.compactMap(\.string) ?? []
            #expect(
                columns == [
                    "_soupEntryId", "Id", "Name", "AnnualRevenue", "Description", "Industry", "LastModifiedDate",
                    "Phone", "_soupLastModifiedDate",
                ])
            // A long value is cut on the server.
            let description = first["rows"]?.array?.first?.array?[4].string ?? ""
            #expect(description.count == RecordTableBound.valueCharactersMax + 1 && description.hasSuffix("…"))

            // Paging: every record once, in _soupEntryId order.
            var seen: [Int64] = []
            var after: JSONValue? = nil
            repeat {
                let query = after.map { "&after=\($0.serializedString)" } ?? ""
                let page = try JSONValue(parsing: try await get("/api/soups/accounts/records?limit=500\(query)").body)
                for row in page["rows"]?.array ?? [] {
                    if let text = row.array?.first?.string, let id = Int64(text) { seen.append(id) }
                }
                if case .number(let next) = page["next"] { after = .number(next) } else { after = nil }
            } while after != nil
            print("inspector scale soup paged in \(clock.now - started)")
            #expect(seen.count == Self.recordCount)
            #expect(Set(seen).count == Self.recordCount)
            #expect(seen == seen.sorted())
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Opens the Soups page of the large store in headless Chromium and measures how long it
    /// takes to draw: from the navigation's start to the table in the page.
    @Test func theSoupsPageOfALargeStoreDrawsQuickly() async throws {
        let chromium = try HeadlessChromium()
        let large = try LargeStore.make()
        let storeURL = large.directory.appending("store")
        try large.store.journal.close()
        defer { large.directory.remove() }
        let served = try ServedProcess.start(try BuiltProduct("journal-replay"), ["serve", storeURL.path])
        defer { served.stop() }
        let url = "http://127.0.0.1:\(served.port)/soups?token=\(served.token)&soup=accounts"
        let drawn = try await withCheckedThrowingContinuation { continuation in
            // Off the cooperative pool: the browser's calls block.
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
                            "syncjournal-devtools-scale-\(getpid())")
                        defer { try? FileManager.default.removeItem(at: profile) }
                        let browser = try DevToolsBrowser(chromium: chromium.url, profile: profile)
                        try browser.open(url)
                        try browser.wait(until: "performance.getEntriesByName('drawn').length")
                        let text = try browser.text()
                        let drawnMs = try browser.evaluate("performance.getEntriesByName('drawn')[0].startTime")
                        // Where the time went: each request's start and duration, in ms.
                        let requests = try browser.evaluate(
                            "performance.getEntriesByType('resource').map((r) => r.name.split('?')[0].split('/').slice(3)"
                                + ".join('/') + ' at ' + Math.round(r.startTime) + ' took ' + Math.round(r.duration))"
                                + ".join('; ')")
                        print("inspector Soups page requests: \(requests.string ?? "")")
                        return (text, drawnMs.number?.doubleValue ?? .infinity)
                    })
            }
        }
        print("inspector Soups page at \(Self.recordCount) records drawn in \(Int(drawn.1)) ms")
        #expect(drawn.0.contains("100 of \(Self.recordCount) records shown"))
        // The goal is under a second (docs/decisions/0364); the bound leaves room for a busy machine.
        #expect(drawn.1 < 5_000)
    }
}

/// The inspector's cut of long values, as the tests expect it (the type itself is internal).
enum RecordTableBound {
    static let valueCharactersMax = 120
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
