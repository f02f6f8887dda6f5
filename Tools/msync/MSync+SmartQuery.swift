import ArgumentParser
import Foundation
import LosslessJSON
import MobileSync
import Soups

extension MSync {
    struct SmartQuery: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "smart-query",
            abstract: "Run a Smart SQL query: SmartStore's SELECT over {soup} tables and {soup:path} fields.",
            discussion: """
                SQL is SQLite's SELECT in which {soup} names a soup, {soup:path} a field (an index's \
                value, or json_extract of the record for json1 indexes and paths without an index), \
                and {soup:_soup}, {soup:_soupEntryId}, {soup:_soupLastModifiedDate}, \
                {soup:_soupCreatedDate} the record and its special fields. Prints each row as one \
                JSON array per line ({soup:_soup} as the record object), or with --json one array of \
                rows; --count prints how many rows the query gives; --explain prints the SQL that runs \
                and SQLite's plan for it (docs/soups.md, "Smart SQL"). Errors exit 2 with one line.

                Example: msync smart-query "select {accounts:Industry}, count(*) from {accounts} \
                group by {accounts:Industry}"
                """)

        @Argument(help: "The smart query.") var sql: String
        @Option(help: "A JSON array of the values of the query's ? parameters, in order.") var args: String?
        @Option(name: .customLong("page-size"), help: "Rows per page.") var pageSize = 10
        @Option(help: "The page, 0-based.") var page = 0
        @Flag(help: "Print how many rows the query gives instead of the rows (paging ignored).") var count = false
        @Flag(help: "Print the SQL that runs and SQLite's plan for it instead of the rows.") var explain = false
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard (1...QuerySpec.pageSizeMax).contains(pageSize) else {
                throw ValidationError("--page-size must be 1 to \(QuerySpec.pageSizeMax)")
            }
            guard page >= 0 else { throw ValidationError("--page must not be negative") }
            guard !(count && explain) else { throw ValidationError("give at most one of --count, --explain") }
        }

        func run() throws {
            let arguments = try parsedArguments()
            let store = try openStore(global)
            let spec = QuerySpec.smart(sql: sql, args: arguments, pageSize: pageSize)
            if count {
                // One number, which is also a JSON document, so --json changes nothing.
                print(try reportingFailures { try store.soups.count(spec) })
            } else if explain {
                let lines = try reportingFailures { try store.soups.explainSmartQuery(spec, pageIndex: page) }
                if global.json {
                    print(JSONValue.array(lines.map(JSONValue.string)).serializedString)
                } else {
                    for line in lines { print(line) }
                }
            } else {
                printRecords(try reportingFailures { try store.soups.query(spec, pageIndex: page) }, json: global.json)
            }
        }

        /// The `--args` array, or none.
        private func parsedArguments() throws -> [JSONValue] {
            guard let args else { return [] }
            guard let array = (try? JSONValue(parsing: args))?.array else {
                throw fail(SoupError(.invalidSmartSQL, "--args must be a JSON array, such as '[\"Acme\", 3]'"))
            }
            return array
        }
    }
}
