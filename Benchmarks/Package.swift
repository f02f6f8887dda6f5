// swift-tools-version: 6.2
import PackageDescription

// Benchmarks live in their own package so the main build never resolves their dependencies.
// Run: swift run -c release --package-path Benchmarks journal-benchmarks append
let package = Package(
    name: "SyncJournalBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "SyncJournal", path: "../"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The SmartStore-style SQLite baseline for the soup benchmark (needs libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "journal-benchmarks",
            dependencies: [
                .product(name: "EventJournal", package: "SyncJournal"),
                .product(name: "LMDBStore", package: "SyncJournal"),
                .product(name: "SyncCore", package: "SyncJournal"),
                .product(name: "SyncTesting", package: "SyncJournal"),
                .product(name: "Soups", package: "SyncJournal"),
                .product(name: "MobileSync", package: "SyncJournal"),
                .product(name: "SalesforceAPI", package: "SyncJournal"),
                .product(name: "SalesforceSimulator", package: "SyncJournal"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/JournalBenchmarks"
        )
    ],
    swiftLanguageModes: [.v6]
)
