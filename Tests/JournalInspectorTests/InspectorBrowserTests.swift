import Foundation
import Testing

/// A real browser opens the inspector: the timeline, a filter, a record's history and the
/// time slider, and saves a screenshot of each page for docs/inspector.md.
@Suite(.serialized) struct InspectorBrowserTests {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/images")

    @Test func aBrowserOpensTheTimelineFiltersItOpensARecordAndMovesThroughTime() async throws {
        let chromium = try HeadlessChromium()
        let session = try await InspectedSession.start()
        do {
            try await browse(chromium, session)
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
    }

    private func browse(_ chromium: HeadlessChromium, _ session: InspectedSession) async throws {
        let base = "http://127.0.0.1:\(session.port)"
        let token = "token=\(InspectedSession.token)"

        let timeline = try await chromium.dumpDOM("\(base)/timeline?\(token)")
        #expect(timeline.contains("18 entries shown of 18"))
        #expect(timeline.contains("Sync run: "))
        #expect(timeline.contains("FAILED"))
        #expect(timeline.contains("Local edits in "))
        #expect(!timeline.contains("class=\"error\""))

        // The filter form submits kind=…: the same URL a person gets by choosing a kind.
        let filtered = try await chromium.dumpDOM("\(base)/timeline?\(token)&kind=sync.up.intent")
        #expect(filtered.contains("2 entries shown of 18"))
        #expect(filtered.contains("<option value=\"sync.up.intent\" selected=\"\">"))

        let record = try await chromium.dumpDOM("\(base)/record?\(token)&soup=accounts&id=local_1")
        #expect(record.contains("History (3 entries)"))
        #expect(record.contains("created locally"))
        #expect(record.contains("Created offline"))
        #expect(record.contains("as of entry 18 of 18"))

        // Moving the slider to entry 10 loads the page with asOf=10: the record before its upload.
        let past = try await chromium.dumpDOM("\(base)/record?\(token)&soup=accounts&id=local_1&asOf=10")
        #expect(past.contains("as of entry 10 of 18"))
        #expect(past.contains("id=\"asof\" min=\"1\" max=\"18\" value=\"10\""))
        #expect(past.contains("History (1 entries)"))
        #expect(past.contains("local_1 as of entry 10"))

        try FileManager.default.createDirectory(at: Self.images, withIntermediateDirectories: true)
        let pages = [
            ("timeline", "/timeline?\(token)"), ("timeline-filtered", "/timeline?\(token)&sync=up"),
            ("syncs", "/syncs?\(token)"), ("soups", "/soups?\(token)&soup=accounts&like=Name%3DC%25"),
            ("record", "/record?\(token)&soup=accounts&id=local_1"),
            ("time-travel", "/record?\(token)&soup=accounts&id=local_1&asOf=10"),
            ("state", "/state?\(token)&asOf=10"), ("store", "/store?\(token)"),
        ]
        for (name, path) in pages {
            try await chromium.screenshot(base + path, to: Self.images.appendingPathComponent("inspector-\(name).png"))
        }
    }
}
