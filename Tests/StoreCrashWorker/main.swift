// A child process for StoreCrashTests: it works on a store until it is killed, printing one
// line per change the library has acknowledged (its call returned). Usage:
//   store-crash-worker STORE INSTANCE_URL ACCESS_TOKEN local|down|up SEED
//
//   local: creates and edits records offline, in small batches
//   down:  syncs down every Account, in pages of 200, again and again
//   up:    creates records offline, then syncs them up, again and again
//
// Lines: "ready", then "ack <last sequence> create <_soupEntryId> <name>", "ack <last sequence>
// update <_soupEntryId> <name>", "ack <last sequence> sync <status>". Before an update it prints
// "will update <_soupEntryId> <name>": a kill between the write and its ack leaves that name.
import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import LosslessJSON
import MobileSync
import SalesforceAPI
import Soups

let arguments = CommandLine.arguments
guard arguments.count == 6, let instanceURL = URL(string: arguments[2]), let seed = UInt64(arguments[5]),
    ["local", "down", "up"].contains(arguments[4])
else {
    FileHandle.standardError.write(Data("usage: store-crash-worker STORE INSTANCE_URL TOKEN local|down|up SEED\n".utf8))
    exit(2)
}
// The test names the commit at which this process kills itself (CrashPoint).
do {
    try CrashPlan.arm(fromEnvironment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("store-crash-worker: \(error)\n".utf8))
    exit(2)
}
let soup = "accounts"
let mode = arguments[4]
let logger = Logger.discarding

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func work() async throws {
    let store = try SyncStore(directory: URL(fileURLWithPath: arguments[1]), clock: SystemWallClock(), logger: logger)
    if !(try store.soups.hasSoup(soup)) {
        try store.soups.registerSoup(
            soup,
            indexSpecs: [
                IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string),
                IndexSpec(path: "ExternalId__c", type: .string),
            ])
    }
    let client = SalesforceClient(
        credentials: SalesforceCredentials(instanceURL: instanceURL, accessToken: arguments[3]), logger: logger)
    let manager = try SyncManager(store: store, client: client, clock: SystemWallClock(), logger: logger)
    if try store.syncState(named: "up") == nil {
        var target = SyncUpTargetDescriptor()
        target.externalIdFieldName = "ExternalId__c"
        try await manager.createSyncUp(
            target: target, options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name", "ExternalId__c"]),
            soupName: soup, name: "up")
    }
    var random = SplitMix64(seed: seed)
    var made = 0
    say("ready")
    func createSome(_ count: Int) throws {
        var created: [(entryId: Int64, name: String)] = []
        for _ in 0..<count {
            made += 1
            let name = "W\(seed)-\(made)"
            let record = try store.soups.createLocally(
                soup, ["attributes": ["type": "Account"], "Name": .string(name), "ExternalId__c": .string(name)])
            created.append((record["_soupEntryId"]?.number?.int64Value ?? 0, name))
        }
        let last = try store.journal.lastSequence()
        for (entryId, name) in created { say("ack \(last) create \(entryId) \(name)") }
    }
    while true {
        switch mode {
        case "local":
            try createSome(Int(random.next() % 5) + 1)
            let records = try store.soups.query(QuerySpec.all(soup, orderPath: "_soupEntryId", pageSize: 50))
            if !records.isEmpty,
                let entryId = records[Int(random.next() % UInt64(records.count))]["_soupEntryId"]?.number?.int64Value
            {
                made += 1
                let name = "E\(seed)-\(made)"
                say("will update \(entryId) \(name)")
                _ = try store.soups.updateLocally(soup, entryId: entryId, changes: ["Name": .string(name)])
                say("ack \(try store.journal.lastSequence()) update \(entryId) \(name)")
            }
        case "down":
            made += 1
            let state = try await manager.syncDown(
                target: SyncDownTargetDescriptor(
                    .soql(query: "SELECT Id, Name, LastModifiedDate FROM Account", maxBatchSize: 200)),
                options: SyncOptions(mergeMode: .leaveIfChanged), soupName: soup, name: "down-\(seed)-\(made)")
            say("ack \(try store.journal.lastSequence()) sync \(state.status)")
        default:
            try createSome(40)
            let state = try await manager.reSync(name: "up")
            say("ack \(try store.journal.lastSequence()) sync \(state.status)")
        }
    }
}

do {
    try await work()
} catch {
    FileHandle.standardError.write(Data("store-crash-worker: \(error)\n".utf8))
    exit(3)
}
