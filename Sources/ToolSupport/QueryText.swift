import Foundation
public import LosslessJSON
public import Soups

/// The query filters as people type them (`msync query --exact PATH=VALUE`, `--range
/// PATH=LO..HI`, `--like PATH=PATTERN`, `--match EXPRESSION`), shared with the web inspector.
public struct QueryText: Sendable, Hashable {
    /// `PATH=VALUE`: records whose indexed value equals VALUE.
    public var exact: String?
    /// `PATH=LO..HI`: records between LO and HI inclusive; either end may be empty.
    public var range: String?
    /// `PATH=PATTERN`: SQL LIKE with % and _.
    public var like: String?
    /// A full-text expression over the soup's full_text indexes.
    public var match: String?

    /// Creates the filters.
    ///
    /// - Parameters:
    ///   - exact: `PATH=VALUE`.
    ///   - range: `PATH=LO..HI`.
    ///   - like: `PATH=PATTERN`.
    ///   - match: a full-text expression.
    public init(exact: String? = nil, range: String? = nil, like: String? = nil, match: String? = nil) {
        self.exact = exact
        self.range = range
        self.like = like
        self.match = match
    }

    /// What is wrong with the filters as typed, in one sentence, or `nil` when they can run.
    ///
    /// - Parameter prefix: what names a filter in the message (`--` for the command line).
    /// - Returns: the problem, or `nil`.
    public func problem(prefix: String) -> String? {
        guard [exact, range, like, match].compactMap({ $0 }).count <= 1 else {
            return "give at most one of \(prefix)exact, \(prefix)range, \(prefix)like, \(prefix)match"
        }
        for (name, value) in [("exact", exact), ("range", range), ("like", like)] {
            if let value, Self.split(value) == nil { return "\(prefix)\(name) expects PATH=VALUE" }
        }
        if let range, let (_, bounds) = Self.split(range), !bounds.contains("..") {
            return "\(prefix)range expects PATH=LO..HI"
        }
        return nil
    }

    /// The filter these texts give for `soup`, typed by the soup's index specs.
    ///
    /// - Parameters:
    ///   - soup: the soup queried.
    ///   - soups: the store, for the index types.
    /// - Returns: the filter; `.all` when none is given.
    /// - Throws: `SoupError` when a value is not a number for a numeric index, or the soup
    ///   cannot be read.
    public func filter(soup: String, soups: SoupStore) throws -> QuerySpec.Filter {
        if let exact, let (path, value) = Self.split(exact) {
            return .exact(path: path, value: try Self.value(value, path: path, soup: soup, soups: soups))
        }
        if let range, let (path, bounds) = Self.split(range), let dots = bounds.range(of: "..") {
            let low = String(bounds[..<dots.lowerBound])
            let high = String(bounds[dots.upperBound...])
            // JSONValue is ExpressibleByNilLiteral: spell out Optional.none so an open end
            // is no bound at all, not a JSON null.
            let lower: JSONValue? = low.isEmpty ? .none : try Self.value(low, path: path, soup: soup, soups: soups)
            let upper: JSONValue? = high.isEmpty ? .none : try Self.value(high, path: path, soup: soup, soups: soups)
            return .range(path: path, lower: lower, upper: upper)
        }
        if let like, let (path, pattern) = Self.split(like) { return .like(path: path, pattern: pattern) }
        if let match { return .match(path: nil, expression: match) }
        return .all
    }

    /// `PATH=VALUE` split at the first `=`, or `nil` without one or without a path.
    ///
    /// - Parameter text: the filter as typed.
    /// - Returns: the path and the value.
    public static func split(_ text: String) -> (String, String)? {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    /// A number for integer and floating indexes, else the text.
    ///
    /// - Parameters:
    ///   - text: the value as typed.
    ///   - path: the index path it is compared with.
    ///   - soup: the soup queried.
    ///   - soups: the store, for the index type.
    /// - Returns: the value to compare.
    /// - Throws: `SoupError` when the text is not a number for a numeric index.
    public static func value(_ text: String, path: String, soup: String, soups: SoupStore) throws -> JSONValue {
        let type = try soups.indexSpecs(of: soup).first { $0.path == path }?.type
        guard type == .integer || type == .floating else { return .string(text) }
        guard let number = JSONNumber(text: text) else {
            throw SoupError(
                .invalidIndexSpec, "'\(text)' is not a number, and index \(path) is \(type?.rawValue ?? "")")
        }
        return .number(number)
    }
}
