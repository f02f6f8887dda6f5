// journal-benchmarks append|state-as-of|soup|sync-down|sync-down-http|sync-up-http [COUNT]
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "append":
    var benchmark = AppendBenchmark()
    if arguments.count > 1, let count = Int(arguments[1]) { benchmark.entryCount = count }
    do {
        try benchmark.run()
    } catch {
        FileHandle.standardError.write(Data("journal-benchmarks: \(error)\n".utf8))
        exit(1)
    }
case "state-as-of":
    var benchmark = StateAsOfBenchmark()
    if arguments.count > 1, let count = Int(arguments[1]) { benchmark.entryCount = count }
    do {
        try benchmark.run()
    } catch {
        FileHandle.standardError.write(Data("journal-benchmarks: \(error)\n".utf8))
        exit(1)
    }
case "soup":
    var benchmark = SoupBenchmark()
    if arguments.count > 1, let count = Int(arguments[1]) { benchmark.recordCount = count }
    do {
        try benchmark.run()
    } catch {
        FileHandle.standardError.write(Data("journal-benchmarks: \(error)\n".utf8))
        exit(1)
    }
case "sync-down":
    var benchmark = SyncDownBenchmark()
    if arguments.count > 1, let count = Int(arguments[1]) { benchmark.recordCount = count }
    if arguments.count > 2, let count = Int(arguments[2]) { benchmark.largeSoupCount = count }
    do {
        try await benchmark.run()
    } catch {
        FileHandle.standardError.write(Data("journal-benchmarks: \(error)\n".utf8))
        exit(1)
    }
case "sync-down-http":
    var benchmark = SyncDownHTTPBenchmark()
    if arguments.count > 1, let count = Int(arguments[1]) { benchmark.recordCount = count }
    do {
        try await benchmark.run()
    } catch {
        FileHandle.standardError.write(Data("journal-benchmarks: \(error)\n".utf8))
        exit(1)
    }
case "sync-up-http":
    var benchmark = SyncUpHTTPBenchmark()
    if arguments.count > 1, let count = Int(arguments[1]) { benchmark.recordCount = count }
    do {
        try await benchmark.run()
    } catch {
        FileHandle.standardError.write(Data("journal-benchmarks: \(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(
        Data("usage: journal-benchmarks append|state-as-of|soup|sync-down|sync-down-http|sync-up-http [COUNT]\n".utf8))
    exit(2)
}
