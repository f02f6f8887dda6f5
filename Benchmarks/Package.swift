// swift-tools-version: 6.2
import PackageDescription

// Benchmarks live in their own package so the main build never resolves their dependencies.
// Run: swift run -c release --package-path Benchmarks journal-benchmarks --help
// SQLCipher must be installed first: Benchmarks/Scripts/ensure-sqlcipher.sh (docs/benchmarks.md).

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "SyncJournalBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "SyncJournal", path: "../"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The SmartStore-style SQLite baseline for the soup benchmark (needs libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "journal-benchmarks",
            dependencies: [
                "BenchmarkSupport",
                "CZlib",
                // The library's zstd module (its product), for the codec benchmark's zstd candidates
                // and its dictionary builder, ZDICT_trainFromBuffer.
                .product(name: "CZstd", package: "SyncJournal"),
                // Not linked: an executable dependency is only built, so `swift run journal-benchmarks`
                // builds the child process the soup benchmark starts for its SQLCipher baseline.
                "sqlcipher-baseline",
                .product(name: "EventJournal", package: "SyncJournal"),
                .product(name: "LMDBStore", package: "SyncJournal"),
                .product(name: "Determinism", package: "SyncJournal"),
                .product(name: "LosslessJSON", package: "SyncJournal"),
                .product(name: "SyncReplay", package: "SyncJournal"),
                .product(name: "SyncTesting", package: "SyncJournal"),
                .product(name: "Soups", package: "SyncJournal"),
                .product(name: "MobileSync", package: "SyncJournal"),
                .product(name: "SalesforceAPI", package: "SyncJournal"),
                .product(name: "SalesforceSimulator", package: "SyncJournal"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                argumentParser,
            ],
            path: "Sources/JournalBenchmarks"
        ),
        // What both executables share: the records, SmartStore's layout, latency summaries and the
        // figures the SQLCipher child hands back. It links no SQLite of any kind.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "Determinism", package: "SyncJournal"),
                .product(name: "LosslessJSON", package: "SyncJournal"),
                // `--shape` is declared once here, for journal-benchmarks and sqlcipher-baseline alike.
                argumentParser,
            ]
        ),
        // SmartStore's encrypted baseline in a process of its own: SQLCipher exports the same
        // `sqlite3_*` symbols as the SQLite GRDB links, so the two cannot share one binary.
        .executableTarget(
            name: "sqlcipher-baseline",
            dependencies: ["BenchmarkSupport", "CSQLCipher", argumentParser],
            path: "Sources/SQLCipherBaseline"
        ),
        // No `pkgConfig:` on purpose: SwiftPM would add its `-lsqlcipher` to every product whose
        // dependencies include this target, journal-benchmarks too (it depends on the child to have
        // it built). The module map's `link "sqlcipher"` reaches only the objects that import it.
        // The header and library are in the system's default paths (Scripts/ensure-sqlcipher.sh).
        .systemLibrary(name: "CSQLCipher"),
        // The system's zlib (zlib1g-dev), for the codec benchmark's deflate candidates; the module
        // map's `link "z"` reaches only journal-benchmarks, the one target that imports it.
        .systemLibrary(name: "CZlib"),
    ],
    swiftLanguageModes: [.v6]
)

// The main package's strict settings, for every target of ours, applied in one place.
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .treatAllWarnings(as: .error),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}
