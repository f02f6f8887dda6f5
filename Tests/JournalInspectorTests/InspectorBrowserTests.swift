import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// A real browser opens the inspector: the timeline, a filter, a record's history and the
/// time slider, and takes a screenshot of each page. The screenshots go to docs/images, for
/// docs/inspector.md, only when asked (`INSPECTOR_SCREENSHOTS=refresh`); any other run writes
/// them to a scratch folder, so running the tests never changes a tracked file.
@Suite(.serialized) struct InspectorBrowserTests {
    static let documentedImages = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/images")

    /// Whether this run refreshes the screenshots in docs/images.
    static var refreshesScreenshots: Bool {
        ProcessInfo.processInfo.environment["INSPECTOR_SCREENSHOTS"] == "refresh"
    }

    @Test func aBrowserFiltersTheTimelineOpensARecordMovesThroughTimeAndFollowsNewEntries() async throws {
        let chromium = try HeadlessChromium()
        let session = try await InspectedSession.start()
        // `journal-replay serve` in its own process, as a user runs it: the pages then never wait
        // for this process's threads, which the rest of the suite keeps busy. Run from the store's
        // folder, it names the store "store" rather than a temporary path, so the screenshots
        // change only when the pages do.
        let served: ServedProcess
        do {
            served = try ServedProcess.start(
                session.replay, ["serve", "store"], currentDirectory: session.storeURL.deletingLastPathComponent())
        } catch {
            await session.stop()
            throw error
        }
        do {
            try await browse(chromium, session, served)
        } catch {
            served.stop()
            await session.stop()
            throw error
        }
        served.stop()
        await session.stop()
    }

    /// What the page showed at each step of the walk.
    struct Walk: Sendable {
        var timeline = ""
        var filtered = ""
        var filteredURL = ""
        var record = ""
        var recordURL = ""
        var past = ""
        var pastURL = ""
        var sliderValue = ""
        var followed = ""
    }

    private func browse(_ chromium: HeadlessChromium, _ session: InspectedSession, _ served: ServedProcess)
        async throws
    {
        let base = "http://127.0.0.1:\(served.port)"
        let token = "token=\(served.token)"
        let scratch = try TemporaryDirectory("inspector-screenshots")
        defer { scratch.remove() }
        let images = Self.refreshesScreenshots ? Self.documentedImages : scratch.url
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let pages = [
            ("timeline", "/timeline?\(token)"), ("timeline-filtered", "/timeline?\(token)&sync=up"),
            ("syncs", "/syncs?\(token)"), ("soups", "/soups?\(token)&soup=accounts&like=Name%3DC%25"),
            ("record", "/record?\(token)&soup=accounts&id=local_1"),
            ("time-travel", "/record?\(token)&soup=accounts&id=local_1&asOf=10"),
            ("state", "/state?\(token)&asOf=10"), ("store", "/store?\(token)"),
        ]
        for (name, path) in pages {
            let file = images.appendingPathComponent("inspector-\(name).png")
            try await chromium.screenshot(base + path, to: file)
            let png = try Data(contentsOf: file)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the \(name) screenshot is not a PNG")
        }

        let walk = try await Self.walk(chromium, start: "\(base)/timeline?\(token)", store: session.store)

        #expect(walk.timeline.contains("18 entries shown of 18"))
        #expect(walk.timeline.contains("Sync run: "))
        #expect(walk.timeline.contains("FAILED"))
        #expect(walk.timeline.contains("Local edits in "))

        // Choosing a kind and pressing Filter gives a URL that can be pasted.
        #expect(walk.filteredURL.contains("kind=sync.up.intent"))
        #expect(walk.filtered.contains("2 entries shown of 18"))
        #expect(!walk.filtered.contains("sync.down.page\t"))

        // Clicking the record's link in the timeline opens its history.
        #expect(walk.recordURL.contains("/record?") && walk.recordURL.contains("id=local_1"))
        #expect(walk.record.contains("History (3 entries)"))
        #expect(walk.record.contains("created locally"))
        #expect(walk.record.contains("Created offline"))
        #expect(walk.record.contains("as of entry 18 of 18"))

        // Moving the slider to entry 10 shows the record before its upload was retried.
        #expect(walk.pastURL.contains("asOf=10"))
        #expect(walk.sliderValue == "10")
        #expect(walk.past.contains("as of entry 10 of 18"))
        #expect(walk.past.contains("History (1 entries)"))
        #expect(walk.past.contains("local_1 as of entry 10"))

        // An open timeline shows an entry appended after it was drawn, without a reload.
        #expect(walk.followed.contains("19 entries shown of 19"))
        #expect(walk.followed.contains("#19\t"))

    }

    /// Opens the timeline, filters it by kind through its form, clicks a record's link, and
    /// drags the time slider to entry 10, reading the page after each step.
    private static func walk(_ chromium: HeadlessChromium, start: String, store: SyncStore) async throws -> Walk {
        try await withCheckedThrowingContinuation { continuation in
            // Off the cooperative pool: the browser's calls block, and the inspector answering
            // it runs on that pool.
            DispatchQueue.global().async {
                continuation.resume(with: Result { try walkBlocking(chromium, start: start, store: store) })
            }
        }
    }

    private static func walkBlocking(_ chromium: HeadlessChromium, start: String, store: SyncStore) throws -> Walk {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "syncjournal-devtools-\(getpid())")
        defer { try? FileManager.default.removeItem(at: profile) }
        let browser = try DevToolsBrowser(chromium: chromium.url, profile: profile)
        var walk = Walk()
        try browser.open(start)
        try browser.wait(until: "document.getElementById('shown')")
        walk.timeline = try browser.text()

        _ = try browser.evaluate(
            "document.querySelector('select[name=kind]').value = 'sync.up.intent';"
                + " document.querySelector('form.filters button[type=submit]').click(); true")
        try browser.wait(until: "location.search.includes('kind=') && document.getElementById('shown')")
        walk.filtered = try browser.text()
        walk.filteredURL = try browser.evaluate("location.href").string ?? ""

        _ = try browser.evaluate("history.back(); true")
        try browser.wait(until: "!location.search.includes('kind=') && document.getElementById('shown')")
        _ = try browser.evaluate(
            "[...document.querySelectorAll('a')].find((a) => a.textContent === '[local_1]').click(); true")
        try browser.wait(until: "location.pathname === '/record' && document.body.innerText.includes('History (')")
        walk.record = try browser.text()
        walk.recordURL = try browser.evaluate("location.href").string ?? ""

        // What dragging does: the value moves (input events), then the drag ends (change).
        _ = try browser.evaluate(
            "const slider = document.getElementById('asof'); slider.value = '10';"
                + " slider.dispatchEvent(new Event('input')); slider.dispatchEvent(new Event('change')); true")
        try browser.wait(
            until: "location.search.includes('asOf=10') && document.body.innerText.includes('History (')")
        walk.past = try browser.text()
        walk.pastURL = try browser.evaluate("location.href").string ?? ""
        walk.sliderValue = try browser.evaluate("document.getElementById('asof').value").string ?? ""

        try browser.open(start)
        try browser.wait(until: "document.getElementById('shown')")
        _ = try store.soups.createLocally("accounts", ["Name": "Appended while open"])
        try browser.wait(until: "document.body.innerText.includes('19 entries shown of 19')")
        walk.followed = try browser.text()
        return walk
    }
}
