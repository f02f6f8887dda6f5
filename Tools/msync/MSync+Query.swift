import ArgumentParser
import Foundation
import LosslessJSON
import MobileSync
import Soups

extension MSync {
    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Query a soup: all records, or one of --exact, --range, --like, --match; or count them.")

        @OptionGroup var global: GlobalOptions
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

        func validate() throws {
            let filters = [exact, range, like, match].compactMap { $0 }
            guard filters.count <= 1 else {
                throw ValidationError("give at most one of --exact, --range, --like, --match")
            }
            guard (1...QuerySpec.pageSizeMax).contains(pageSize) else {
                throw ValidationError("--page-size must be 1 to \(QuerySpec.pageSizeMax)")
            }
            guard page >= 0 else { throw ValidationError("--page must not be negative") }
            for (flag, value) in [("--exact", exact), ("--range", range), ("--like", like)] {
                if let value, Self.split(value) == nil { throw ValidationError("\(flag) expects PATH=VALUE") }
            }
            if let range, let (_, bounds) = Self.split(range), !bounds.contains("..") {
                throw ValidationError("--range expects PATH=LO..HI")
            }
        }

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
            if let exact, let (path, value) = Self.split(exact) {
                return .exact(path: path, value: try Self.value(value, path: path, soup: soup, store: store))
            }
            if let range, let (path, bounds) = Self.split(range), let dots = bounds.range(of: "..") {
                let low = String(bounds[..<dots.lowerBound])
                let high = String(bounds[dots.upperBound...])
                // JSONValue is ExpressibleByNilLiteral: spell out Optional.none so an open end
                // is no bound at all, not a JSON null.
                let lower: JSONValue? = low.isEmpty ? .none : try Self.value(low, path: path, soup: soup, store: store)
                let upper: JSONValue? =
                    high.isEmpty ? .none : try Self.value(high, path: path, soup: soup, store: store)
                return .range(path: path, lower: lower, upper: upper)
            }
            if let like, let (path, pattern) = Self.split(like) { return .like(path: path, pattern: pattern) }
            if let match { return .match(path: nil, expression: match) }
            return .all
        }

        static func split(_ text: String) -> (String, String)? {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }

        /// A number for integer and floating indexes, else the text.
        static func value(_ text: String, path: String, soup: String, store: SyncStore) throws -> JSONValue {
            let type = try store.soups.indexSpecs(of: soup).first { $0.path == path }?.type
            guard type == .integer || type == .floating else { return .string(text) }
            guard let number = JSONNumber(text: text) else {
                throw SoupError(
                    .invalidIndexSpec, "'\(text)' is not a number, and index \(path) is \(type?.rawValue ?? "")")
            }
            return .number(number)
        }
    }
}
