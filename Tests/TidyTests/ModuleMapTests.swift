import Foundation
import Testing

/// docs/architecture.md draws the modules and names each one's folders, and the README's layout
/// table lists them; these checks keep both in step with `Sources/` and `Package.swift`, so a
/// module or folder added without its line fails CI instead of leaving the map stale.
@Suite struct ModuleMapTests {
    static let root = TidyTests.repositoryRoot

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static var modules: [String] {
        get throws {
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
                .filter { !$0.hasPrefix(".") }.sorted()
        }
    }

    /// The folders inside a module, but its DocC catalogue.
    static func folders(of module: String) throws -> [String] {
        let folder = root.appendingPathComponent("Sources/\(module)")
        let files = FileManager.default
        return try files.contentsOfDirectory(atPath: folder.path).filter { name in
            var isDirectory: ObjCBool = false
            let exists = files.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory)
            return exists && isDirectory.boolValue && !name.hasSuffix(".docc")
        }
        .sorted()
    }

    @Test func everyModuleIsInTheDiagramAndTheLayoutTable() throws {
        let architecture = try Self.text("docs/architecture.md")
        let diagram = architecture.components(separatedBy: "```").dropFirst().first ?? ""
        let readme = try Self.text("README.md")
        let manifest = try Self.text("Package.swift")
        let modules = try Self.modules
        #expect(modules.count >= 14)
        for module in modules {
            #expect(diagram.contains("  \(module) ") || diagram.contains("\n\(module) "), "diagram lacks \(module)")
            #expect(readme.contains("| `Sources/\(module)` |"), "README's layout table lacks Sources/\(module)")
            #expect(manifest.contains("name: \"\(module)\""), "Package.swift has no target \(module)")
        }
    }

    @Test func everyFolderOfAModuleIsNamedInTheArchitecture() throws {
        let architecture = try Self.text("docs/architecture.md")
        let rows = architecture.split(separator: "\n").filter { $0.hasPrefix("| `") }
        for module in try Self.modules {
            let folders = try Self.folders(of: module)
            guard !folders.isEmpty else { continue }
            let row = rows.first { $0.hasPrefix("| `\(module)` |") }
            #expect(row != nil, "docs/architecture.md's folder table lacks \(module)")
            for folder in folders {
                #expect(
                    row?.contains("`\(folder)/`") == true, "docs/architecture.md does not name \(module)/\(folder)/")
            }
        }
    }
}
