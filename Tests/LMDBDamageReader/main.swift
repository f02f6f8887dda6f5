// A child process for the damage-note tests: it opens an LMDB environment that notes damage and
// reads every record of one database, so that a damaged page faults or aborts here, not in the
// test process. Usage: lmdb-damage-reader DIRECTORY DATABASE [EXIT-STATUS | stray]
//   EXIT-STATUS: end with that status and one line after a note (as the tools do)
//   stray:       fault on purpose outside any transaction, which no note may blame on the store
// Prints "read N" when every record was read.
import Foundation
import LMDBStore

let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count) else {
    FileHandle.standardError.write(Data("usage: lmdb-damage-reader DIRECTORY DATABASE [EXIT-STATUS | stray]\n".utf8))
    exit(2)
}
if arguments.count == 4, let status = Int32(arguments[3]) {
    DamageNote.endProcessOnDamage(status: status, prefix: "lmdb-damage-reader:")
}
do {
    var options = EnvironmentOptions()
    options.notesDamage = true
    let environment = try Environment(directory: URL(fileURLWithPath: arguments[1]), options: options)
    if arguments.count == 4, arguments[3] == "stray" {
        // A bad pointer of the program's own, after the environment installed its handler.
        let stray = UnsafeMutablePointer<Int>(bitPattern: 0x10)
        stray?.pointee = 1
    }
    let database = try environment.database(named: arguments[2])
    let count = try environment.read { transaction in
        var count = 0
        try transaction.withCursor(database) { cursor in
            try cursor.forEach { _, _ in
                count += 1
                return true
            }
        }
        return count
    }
    print("read \(count)")
} catch {
    FileHandle.standardError.write(Data("lmdb-damage-reader: \(error)\n".utf8))
    exit(3)
}
