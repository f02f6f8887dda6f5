import ArgumentParser
import Foundation
import LosslessJSON
import MobileSync
import Soups
import ToolSupport

extension MSync {
    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Query a soup: all records, or one of --exact, --range, --like, --match; or count them.")

        @Argument(help: "The soup.") var soup: String
        @Option(help: "PATH=VALUE: records whose indexed value equals VALUE.") var exact: String?
        @Option(help: "PATH=LO..HI: records between LO and HI inclusive; either end may be empty.") var range: String?
        @Option(help: "PATH=PATTERN: SQL LIKE with % and _, case-insensitive for ASCII.") var like: String?
        @Option(help: "Full-text expression over the soup's full_text indexes.") var match: String?
        @Option(name: .customLong("order-by"), help: "Order by this path.") var orderBy: String?
        @Flag(help: "Largest first.") var descending = false
        @Option(name: .customLong("page-size"), help: "Records per page.") var pageSize = 10
        @Option(help: "The page, 0-based.") var page = 0
        @Flag(help: "Print how many records match instead of the records (paging and order ignored).")
        var count = false
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if let problem = text.problem(prefix: "--") { throw ValidationError(problem) }
            guard (1...QuerySpec.pageSizeMax).contains(pageSize) else {
                throw ValidationError("--page-size must be 1 to \(QuerySpec.pageSizeMax)")
            }
            guard page >= 0 else { throw ValidationError("--page must not be negative") }
        }

        /// The filters as typed, which ToolSupport turns into a query's filter.
        private var text: QueryText { QueryText(exact: exact, range: range, like: like, match: match) }

        func run() throws {
            let store = try openStore(global)
            if count {
                // One number, which is also a JSON document, so --json changes nothing.
                print(
                    try reportingFailures {
                        try store.soups.count(QuerySpec(soupName: soup, filter: try filter(store)))
                    })
                return
            }
            let records = try reportingFailures {
                let spec = QuerySpec(
                    soupName: soup, filter: try filter(store), orderPath: orderBy,
                    order: descending ? .descending : .ascending, pageSize: pageSize)
                return try store.soups.query(spec, pageIndex: page)
            }
            printRecords(records, json: global.json)
        }

        private func filter(_ store: SyncStore) throws -> QuerySpec.Filter {
            try text.filter(soup: soup, soups: store.soups)
        }
    }
}
