import BenchmarkSupport
import Foundation
import LosslessJSON

/// SmartStore's layout (``SmartStoreLayout``) in an SQLCipher database: the encrypted baseline.
final class SQLCipherSoupStore: SoupWorkloadStore {
    let database: SQLCipherDatabase
    private let path: String
    private let insertStatement: SQLCipherStatement
    private let lookupStatement: SQLCipherStatement
    private let rangePageStatement: SQLCipherStatement

    init(path: String, passphrase: String) throws {
        self.path = path
        database = try SQLCipherDatabase(path: path, passphrase: passphrase)
        try database.execute(SmartStoreLayout.createStatements)
        insertStatement = try SQLCipherStatement(SmartStoreLayout.insertStatement, connection: database.connection)
        lookupStatement = try SQLCipherStatement(SmartStoreLayout.lookupStatement, connection: database.connection)
        rangePageStatement = try SQLCipherStatement(
            SmartStoreLayout.rangePageStatement, connection: database.connection)
    }

    func insert(_ records: [JSONValue]) throws {
        let modified = SmartStoreLayout.modifiedMilliseconds
        try database.inTransaction {
            for record in records {
                let row = SmartStoreLayout.Row(record)
                try insertStatement.run([
                    .text(row.soup), .integer(modified), .integer(modified), .text(row.id), .text(row.name),
                    .integer(row.annualRevenue), .real(row.rating),
                ])
            }
        }
    }

    func lookup(id: String) throws -> JSONValue? {
        try lookupStatement.run([.text(id)]).first.map { try JSONValue(parsing: $0) }
    }

    func rangePage(from low: Int64) throws -> [JSONValue] {
        try rangePageStatement.run([.integer(low)]).map { try JSONValue(parsing: $0) }
    }

    /// The database and its WAL, as the SQLite baseline counts them.
    func storeBytes() throws -> Int {
        SmartStoreLayout.storeBytes(databasePath: path)
    }

    /// Whether the database file is encrypted: a plain SQLite file starts with "SQLite format 3".
    func fileIsEncrypted() throws -> Bool {
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 15) ?? Data()
        return header != Data("SQLite format 3".utf8)
    }
}
