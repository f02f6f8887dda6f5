// swift-tools-version: 6.2
import PackageDescription

// SyncJournal: Salesforce Mobile Sync behaviour on an event-sourced LMDB journal.
// The layers depend one way; docs/architecture.md draws them.

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")

let package = Package(
    name: "SyncJournal",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Determinism", targets: ["Determinism"]),
        .library(name: "LosslessJSON", targets: ["LosslessJSON"]),
        .library(name: "LMDBStore", targets: ["LMDBStore"]),
        .library(name: "EventJournal", targets: ["EventJournal"]),
        // The system's zstd, a product so that the benchmarks' codec comparison uses this module
        // rather than declaring a second one of the same name.
        .library(name: "CZstd", targets: ["CZstd"]),
        .library(name: "SyncTesting", targets: ["SyncTesting"]),
        .library(name: "SyncReplay", targets: ["SyncReplay"]),
        .executable(name: "msync", targets: ["msync"]),
        .executable(name: "journal-replay", targets: ["journal-replay"]),
        .library(name: "SalesforceAPI", targets: ["SalesforceAPI"]),
        .library(name: "SalesforceSimulator", targets: ["SalesforceSimulator"]),
        .library(name: "Soups", targets: ["Soups"]),
        .executable(name: "salesforce-simulator", targets: ["salesforce-simulator"]),
        .library(name: "MobileSync", targets: ["MobileSync"]),
        .library(name: "SmartStoreImport", targets: ["SmartStoreImport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // AES-GCM for encryption at rest (BoringSSL on Linux, CryptoKit on Apple platforms).
        // Pinned to a minor version: CAESGCM declares BoringSSL functions swift-crypto links but
        // does not export (decisions 0017, 0020), so a new minor is taken on purpose, with its tests.
        .package(url: "https://github.com/apple/swift-crypto", .upToNextMinor(from: "4.5.2")),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Hummingbird's own dependencies, named because the simulator imports NIOCore and HTTPTypes.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation`: Scripts/docs builds the DocC catalogues with it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: - Foundations
        .target(name: "Determinism", dependencies: [logging]),
        .testTarget(name: "DeterminismTests", dependencies: ["Determinism"]),
        .target(name: "LosslessJSON"),
        .testTarget(name: "LosslessJSONTests", dependencies: ["LosslessJSON", "Determinism"]),

        // MARK: - Storage: LMDB and the event journal
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]),
        // Damage notes written from a fault handler: C, because a signal handler may only call
        // async-signal-safe functions and Swift code may allocate.
        .target(name: "CDamageFaults"),
        .target(name: "LMDBStore", dependencies: ["CLMDB", "CDamageFaults"]),
        // Hardware CRC-32C (SSE 4.2, ARMv8 CRC) behind a runtime check; C because Swift cannot
        // build one function for an instruction set the rest of the binary does not assume.
        .target(name: "CCRC32C"),
        // zstd compresses journal entries that hold pages of records (decisions 0028, 0029):
        // Debian's libzstd-dev, installed by Scripts/ensure-zstd.sh; Homebrew's zstd on macOS.
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        // AES-GCM with a key schedule made once per data key, over the BoringSSL swift-crypto
        // links (decision 0017); C, because that BoringSSL is not a product Swift can import.
        // It depends on Crypto, the product whose objects carry the symbols it declares; a
        // known-answer test at first use falls back to swift-crypto if they answer wrong (0020).
        .target(name: "CAESGCM", dependencies: [crypto]),
        .target(
            name: "EventJournal",
            dependencies: ["CAESGCM", "CCRC32C", "CZstd", "LMDBStore", "Determinism", "LosslessJSON", crypto, logging]
        ),
        .testTarget(name: "LMDBStoreTests", dependencies: ["LMDBStore", "Determinism", "LosslessJSON", "SyncTesting"]),
        .testTarget(
            name: "EventJournalTests",
            dependencies: ["EventJournal", "LMDBStore", "Determinism", "LosslessJSON", "SyncTesting", crypto, logging]
        ),
        // A child process for the crash-safety tests: it appends until it is killed.
        .executableTarget(
            name: "journal-crash-writer",
            dependencies: ["EventJournal", "LMDBStore", "Determinism", "LosslessJSON", "SyncTesting", logging],
            path: "Tests/JournalCrashWriter"
        ),

        // A child process for the damage-note tests: reads a damaged environment, which may fault.
        .executableTarget(name: "lmdb-damage-reader", dependencies: ["LMDBStore"], path: "Tests/LMDBDamageReader"),

        // A child process for the store crash tests: local writes, sync downs and sync ups until killed.
        .executableTarget(
            name: "store-crash-worker",
            dependencies: [
                "EventJournal", "LMDBStore", "MobileSync", "SalesforceAPI", "Soups", "Determinism", "LosslessJSON",
                logging,
            ],
            path: "Tests/StoreCrashWorker"
        ),

        // MARK: - Tools
        // What both command-line tools share: progress display, retention options, and the
        // answers of log, state, info and blame, which the web inspector serves too.
        .target(
            name: "ToolSupport",
            dependencies: ["EventJournal", "MobileSync", "Soups", "Determinism", "LosslessJSON", argumentParser]
        ),
        .testTarget(name: "ToolSupportTests", dependencies: ["ToolSupport", "EventJournal"]),
        .executableTarget(
            name: "journal-replay",
            dependencies: [
                "EventJournal", "LMDBStore", "MobileSync", "Soups", "Determinism", "LosslessJSON", "SyncReplay",
                "ToolSupport", "JournalInspector",
                argumentParser, logging,
            ],
            path: "Tools/journal-replay"
        ),
        .executableTarget(
            name: "msync",
            dependencies: [
                "EventJournal", "LMDBStore", "MobileSync", "SalesforceAPI", "SalesforceSimulator", "Soups",
                "Determinism", "LosslessJSON", "ToolSupport", "JournalInspector", "SmartStoreImport",
                argumentParser, logging,
            ],
            path: "Tools/msync",
            // The demo's userstore.json and usersyncs.json.
            resources: [.copy("Resources/userstore.json"), .copy("Resources/usersyncs.json")]
        ),

        // The read-only web inspector of a store (`journal-replay serve`, `msync inspect`): pages
        // and JSON over Hummingbird on loopback, the pages bundled as resources (decision 0361).
        .target(
            name: "JournalInspector",
            dependencies: [
                "EventJournal", "MobileSync", "Soups", "Determinism", "LosslessJSON", "ToolSupport", logging,
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [
                .copy("Resources/inspector.html"), .copy("Resources/inspector.css"), .copy("Resources/inspector.js"),
            ]
        ),
        .testTarget(
            name: "JournalInspectorTests",
            dependencies: [
                "JournalInspector", "EventJournal", "MobileSync", "Soups", "Determinism", "LosslessJSON", "SyncTesting",
                "ToolSupport", "journal-replay", "msync", "salesforce-simulator", logging,
            ]
        ),

        // MARK: - End-to-end tests of the executables
        .testTarget(
            name: "ToolTests",
            dependencies: [
                "EventJournal", "LMDBStore", "MobileSync", "SalesforceAPI", "SalesforceSimulator", "Soups",
                "Determinism", "LosslessJSON", "SyncReplay", "SyncTesting",
                "journal-replay", "msync", "salesforce-simulator", "store-crash-worker",
            ],
            // A store written by an earlier SyncJournal, read through #filePath.
            exclude: ["Fixtures"]
        ),

        // MARK: - Style
        .testTarget(name: "TidyTests", dependencies: ["TestParallelism"]),
        // Bounds how many tests run at once in the test binary (a constructor; decision 0022).
        .target(name: "TestParallelism", path: "Tests/TestParallelism"),

        // MARK: - Salesforce (client and simulator)
        .target(name: "SalesforceAPI", dependencies: ["Determinism", "LosslessJSON", logging]),
        .target(
            name: "SalesforceSimulator",
            dependencies: [
                "SalesforceAPI", "Determinism", "LosslessJSON", logging,
                .product(name: "Hummingbird", package: "hummingbird"),
                // The server is built from HummingbirdCore directly: Hummingbird's Application
                // stamps every answer's `Date` with the wall clock, and the simulator's is its own.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Resources/demo-org.json")]
        ),
        .executableTarget(
            name: "salesforce-simulator",
            dependencies: ["SalesforceSimulator", "Determinism", "LosslessJSON", argumentParser, logging],
            path: "Tools/salesforce-simulator"
        ),
        .testTarget(
            name: "SalesforceAPITests",
            dependencies: [
                "SalesforceAPI", "SalesforceSimulator", "Determinism", "LosslessJSON", logging,
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SalesforceSimulatorTests",
            dependencies: ["SalesforceSimulator", "SalesforceAPI", "Determinism", "LosslessJSON", logging]
        ),

        // MARK: - Soups
        // SQLite runs Smart SQL over virtual tables of the soups (decision 0203); Apple platforms use
        // the system SQLite.
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(
            name: "Soups",
            dependencies: ["CSQLite", "CZstd", "EventJournal", "LMDBStore", "Determinism", "LosslessJSON"]
        ),
        .testTarget(
            name: "SoupsTests",
            dependencies: ["Soups", "EventJournal", "LMDBStore", "Determinism", "LosslessJSON", "SyncTesting", logging]),

        // MARK: - Mobile Sync
        .target(
            name: "MobileSync",
            dependencies: [
                "EventJournal", "LMDBStore", "SalesforceAPI", "Soups", "Determinism", "LosslessJSON", logging,
            ]
        ),
        .testTarget(
            name: "MobileSyncTests",
            dependencies: [
                "MobileSync", "EventJournal", "LMDBStore", "SalesforceAPI", "SalesforceSimulator", "Soups",
                "Determinism", "LosslessJSON", "SyncReplay", "SyncTesting",
                logging,
            ]
        ),

        // MARK: - SmartStore import
        // Reads a Mobile SDK SmartStore database (SQLite, read-only) into a new store (decision 0204).
        .target(
            name: "SmartStoreImport",
            dependencies: ["CSQLite", "EventJournal", "LosslessJSON", "Soups", "MobileSync"]
        ),
        .testTarget(
            name: "SmartStoreImportTests",
            dependencies: [
                "SmartStoreImport", "MobileSync", "Soups", "EventJournal", "LosslessJSON", "Determinism",
                "SalesforceAPI", "SalesforceSimulator", "SyncTesting", logging,
            ]
        ),

        // MARK: - Replays and test support
        // Recorded sessions and the seeded simulation, which journal-replay ships.
        .target(
            name: "SyncReplay",
            dependencies: [
                "Determinism", "EventJournal", "LMDBStore", "LosslessJSON", "MobileSync", "SalesforceAPI",
                "SalesforceSimulator", "Soups", logging,
            ]
        ),
        // Test twins and fixtures: temporary directories, clocks to hold, crash payloads.
        .target(
            name: "SyncTesting",
            dependencies: [
                // CSQLite: SmartStoreFixture writes SmartStore database files for the import tests.
                "CSQLite", "EventJournal", "LMDBStore", "Soups", "Determinism", "LosslessJSON", logging,
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Strict settings for every Swift target of ours, applied in one place so no target is forgotten.
// The C targets take none: these are Swift compiler settings.
let cTargetNames: Set = ["CCRC32C"]
for target in package.targets where target.type != .system && !cTargetNames.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .treatAllWarnings(as: .error),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .define("SYNC_INTERNAL_CHECKS", .when(configuration: .debug)),
    ])
    target.swiftSettings = settings
}
