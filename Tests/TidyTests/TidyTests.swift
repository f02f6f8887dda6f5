import Foundation
import Testing

/// Scans the library sources for what the house style bans, so a slip fails CI instead of
/// waiting for review.
@Suite struct TidyTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Files allowed to read the live clock or mint random identifiers: the one place that
    /// builds live values.
    static let liveValueFiles: Set<String> = ["SystemWallClock.swift", "SystemBootIdentity.swift"]

    /// The longest function body, in lines, before a function should be split.
    static let functionLengthMax = 70

    static func librarySources() throws -> [(path: String, lines: [Substring])] {
        try sources(in: "Sources")
    }

    static func sources(in folder: String) throws -> [(path: String, lines: [Substring])] {
        let sources = repositoryRoot.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [(String, [Substring])] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            files.append(
                (
                    url.path.replacingOccurrences(of: repositoryRoot.path + "/", with: ""),
                    text.split(separator: "\n", omittingEmptySubsequences: false)
                ))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    @Test func librarySourcesExist() throws {
        #expect(try Self.librarySources().count > 20)
    }

    /// An allowance for a file that no longer exists would silently allow its next namesake.
    @Test func everyAllowedLiveValueFileExists() throws {
        let names = Set(try Self.librarySources().map { ($0.path as NSString).lastPathComponent })
        for file in Self.liveValueFiles {
            #expect(names.contains(file), "TidyTests allows \(file), which no library source is")
        }
    }

    @Test(arguments: [
        ("Date()", "take a WallClock"),
        ("UUID()", "take an IDGenerator"),
        ("Thread.sleep", "take a Clock"),
        ("usleep(", "wait on an injected Clock, never blocking a thread, an actor or a lock"),
        ("try!", "throw a typed error"),
        ("FIXME", "fix it or file an issue"),
        ("fatalError(\"not implemented", "no stubs"),
        ("print(", "libraries log through an injected Logger"),
        ("boot_id", "take a BootIdentity"),
        ("kern.boottime", "take a BootIdentity"),
        ("kern.bootsessionuuid", "take a BootIdentity"),
    ])
    func librariesAvoid(pattern: String, instead: String) throws {
        for (path, lines) in try Self.librarySources() {
            let fileName = (path as NSString).lastPathComponent
            let livePatterns: Set<String> = ["Date()", "UUID()", "boot_id", "kern.boottime", "kern.bootsessionuuid"]
            if Self.liveValueFiles.contains(fileName) && livePatterns.contains(pattern) { continue }
            for (number, line) in lines.enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                #expect(!code.contains(pattern), "\(path):\(number + 1) uses \(pattern): \(instead)")
            }
        }
    }

    /// Swift Testing runs every test at once on a cooperative pool as wide as the machine's
    /// cores (two in CI). A test that blocks a pool thread while a child process runs starves
    /// the loopback servers and clocks of all the others; tests await children instead
    /// (`BuiltProduct.run`, `Process.exited()`). Allowed: the wait inside `exited()` once the
    /// process is gone, stops right after `terminate()`, and the browser driver's short polls.
    @Test(arguments: ["concurrentPerform", "usleep(", "Thread.sleep", ".waitUntilExit()"])
    func testsNeverBlockTheSharedPool(pattern: String) throws {
        let blockingAllowed: Set<String> = [
            "BuiltProduct.swift", "SimulatorProcess.swift", "ServedProcess.swift", "DevToolsBrowser.swift",
            "TidyTests.swift",
        ]
        for (path, lines) in try Self.sources(in: "Tests") + Self.sources(in: "Sources/SyncTesting") {
            if blockingAllowed.contains((path as NSString).lastPathComponent) { continue }
            for (number, line) in lines.enumerated() {
                #expect(!line.contains(pattern), "\(path):\(number + 1) blocks a thread of the tests' pool")
            }
        }
    }

    @Test func randomnessAlwaysNamesItsGenerator() throws {
        for (path, lines) in try Self.librarySources() {
            for (number, line) in lines.enumerated() where line.contains(".random(") || line.contains(".randomElement(")
            {
                #expect(line.contains("using:"), "\(path):\(number + 1) draws randomness without an injected generator")
            }
        }
    }

    @Test func functionsStayShort() throws {
        for (path, lines) in try Self.librarySources() {
            var index = 0
            while index < lines.count {
                let line = lines[index].trimmingCharacters(in: .whitespaces)
                let declaresFunction = line.contains("func ") && !line.hasPrefix("//") && !line.hasPrefix("///")
                guard declaresFunction, let length = Self.bodyLength(lines, from: index) else {
                    index += 1
                    continue
                }
                #expect(
                    length <= Self.functionLengthMax,
                    "\(path):\(index + 1) has a \(length)-line function; split it (limit \(Self.functionLengthMax))")
                index += 1
            }
        }
    }

    /// `Scripts/docs` (CI's documentation step) builds every Swift module under Sources/; each
    /// needs a DocC catalogue whose root page documents the module, or its documentation would be
    /// built from bare symbols (and the script stops).
    @Test func everyLibraryModuleHasADocCCatalogue() throws {
        let files = FileManager.default
        let sources = Self.repositoryRoot.appendingPathComponent("Sources")
        var modules = 0
        for name in try files.contentsOfDirectory(atPath: sources.path).sorted() {
            let folder = sources.appendingPathComponent(name)
            let swiftFiles =
                files.enumerator(atPath: folder.path)?.compactMap { $0 as? String }
                .filter { $0.hasSuffix(".swift") } ?? []
            guard !swiftFiles.isEmpty else { continue }
            modules += 1
            let root = folder.appendingPathComponent("\(name).docc/\(name).md")
            let text = (try? String(contentsOf: root, encoding: .utf8)) ?? ""
            #expect(text.hasPrefix("# ``\(name)``"), "\(name) needs \(root.path) starting with # ``\(name)``")
        }
        #expect(modules >= 12)
    }

    /// Code and docs cite decisions as "decision NNNN" (or "decisions NNNN, NNNN"); a cited
    /// number must be a record in docs/decisions, or a reader follows a dead reference.
    @Test func everyCitedDecisionExists() throws {
        let files = FileManager.default
        let decisionsFolder = Self.repositoryRoot.appendingPathComponent("docs/decisions")
        let records = Set(try files.contentsOfDirectory(atPath: decisionsFolder.path).map { String($0.prefix(4)) })
        #expect(records.count > 40)
        let citation = try Regex(#"[Dd]ecisions? ([0-9]{4}(?:(?:, | and |/)[0-9]{4})*)"#)
        var cited = 0
        for folder in ["Sources", "Tools", "Tests", "docs", "Benchmarks/Sources", "README.md"] {
            let root = Self.repositoryRoot.appendingPathComponent(folder)
            let paths = files.enumerator(atPath: root.path).map { $0.compactMap { $0 as? String } } ?? [""]
            for path in paths where path.isEmpty || path.hasSuffix(".swift") || path.hasSuffix(".md") {
                let url = path.isEmpty ? root : root.appendingPathComponent(path)
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                for match in text.matches(of: citation) {
                    for number in match.output[1].substring?.split(whereSeparator: { !$0.isNumber }) ?? [] {
                        cited += 1
                        #expect(records.contains(String(number)), "\(folder)/\(path) cites decision \(number)")
                    }
                }
            }
        }
        #expect(cited > 100)
    }

    /// Lines from a declaration to the brace that closes its body, counting braces outside
    /// string literals; nil for declarations without a body.
    static func bodyLength(_ lines: [Substring], from start: Int) -> Int? {
        var depth = 0
        var opened = false
        for index in start..<lines.count {
            var inString = false
            var previous: Character = " "
            for character in lines[index] {
                if character == "\"" && previous != "\\" { inString.toggle() }
                if !inString {
                    if character == "{" {
                        depth += 1
                        opened = true
                    } else if character == "}" {
                        depth -= 1
                    }
                }
                previous = character
            }
            if opened && depth <= 0 { return index - start + 1 }
            if !opened && index > start + 6 { return nil }
        }
        return nil
    }
}
