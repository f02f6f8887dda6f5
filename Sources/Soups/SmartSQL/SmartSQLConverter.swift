/// Converts a smart query to SQL over SmartStore's tables, as Mobile SDK's `SmartSqlHelper`
/// converts it.
///
/// - `{soup}` becomes the soup's table, `TABLE_<n>`;
/// - `{soup:_soup}`, `{soup:_soupEntryId}`, `{soup:_soupCreatedDate}` and
///   `{soup:_soupLastModifiedDate}` become `TABLE_<n>.soup`, `.id`, `.created` and
///   `.lastModified` (unqualified after `alias.`);
/// - `{soup:path}` becomes the column of the first index on `path` (`TABLE_<n>_<k>`), or, for a
///   `json1` index and for a path without an index, `json_extract(soup, '$.path')`; after
///   `alias.` that is `json_extract(alias.soup, '$.path')`;
/// - braces inside single-quoted strings are left alone, except in the string right after
///   `MATCH`, where SmartStore converts them too.
///
/// Statements that are not a `SELECT` are refused with SmartStore's message, "Only SELECT are
/// supported"; an unknown soup or a malformed reference names itself and its position (the
/// 0-based character offset of its `{`).
struct SmartSQLConverter {
    /// The special paths and the columns they name.
    static let specialColumns = [
        "_soup": "soup", "_soupEntryId": "id", "_soupCreatedDate": "created", "_soupLastModifiedDate": "lastModified",
    ]

    /// What a smart query is made of: text to copy, and `{…}` references.
    enum Segment: Equatable {
        case text(String)
        /// `{content}`, its `{` at UTF-8 offset `offset`; `isQualified` when a `.` comes right
        /// before it.
        case reference(content: String, offset: Int, isQualified: Bool)
    }

    /// The soups a reference may name, by name.
    let soups: [String: SmartSoup]

    /// A converter for references to `soups`.
    init(soups: [SmartSoup]) {
        self.soups = Dictionary(soups.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The SQL for `smartSQL`.
    /// - Throws: ``SoupError/Code/invalidSmartSQL`` for a statement other than a `SELECT` or a
    ///   malformed reference, ``SoupError/Code/unknownSoup`` for a reference to no soup.
    func convert(_ smartSQL: String) throws -> String {
        try Self.requireSelect(smartSQL)
        var sql = ""
        for segment in try Self.segments(smartSQL) {
            switch segment {
            case .text(let text):
                sql += text
            case .reference(let content, let offset, let isQualified):
                let position = { Self.characterPosition(ofOffset: offset, in: smartSQL) }
                try append(content, position: position, isQualified: isQualified, to: &sql)
            }
        }
        return sql
    }

    /// The soups a smart query names in its references, without looking them up.
    static func referencedSoupNames(_ smartSQL: String) throws -> Set<String> {
        var names = Set<String>()
        for case .reference(let content, let offset, _) in try segments(smartSQL) {
            names.insert(try parts(content, position: { characterPosition(ofOffset: offset, in: smartSQL) }).soup)
        }
        return names
    }

    // MARK: - References

    /// Appends the SQL for one reference; `position` gives its character position, for errors.
    private func append(_ content: String, position: () -> Int, isQualified: Bool, to sql: inout String) throws {
        let (soupName, path) = try Self.parts(content, position: position)
        guard let soup = soups[soupName] else {
            throw SoupError(.unknownSoup, "Unknown soup '\(soupName)' at character \(position())")
        }
        guard let path else {
            sql += soup.tableName
            return
        }
        if let column = Self.specialColumns[path] {
            sql += isQualified ? column : "\(soup.tableName).\(column)"
        } else if let index = soup.index(on: path), index.type != .json1 {
            // SmartStore's index column names are unique across tables, so it never qualifies them.
            sql += soup.columnName(index)
        } else {
            let pathLiteral =
                "'$.\(path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''"))'"
            // `alias.json_extract(soup, …)` is not SQL: the qualifier moves onto the column.
            if isQualified, let qualifier = Self.trailingQualifier(of: sql) {
                sql.removeSubrange(qualifier.start...)
                sql += "json_extract(\(qualifier.word).soup, \(pathLiteral))"
            } else {
                sql += "json_extract(soup, \(pathLiteral))"
            }
        }
    }

    /// The soup name and path of a reference's content (`soup` or `soup:path`).
    private static func parts(_ content: String, position: () -> Int) throws -> (soup: String, path: String?) {
        let parts = content.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let soup = parts.first, !soup.isEmpty, parts.count == 1 || !parts[1].isEmpty else {
            throw SoupError(.invalidSmartSQL, "Invalid soup/path reference {\(content)} at character \(position())")
        }
        return (soup, parts.count == 2 ? parts[1] : nil)
    }

    /// The qualifier (`[A-Za-z0-9_]+`, as SmartStore's `\w+`) and its dot that end `sql`, and
    /// where the qualifier starts.
    private static func trailingQualifier(of sql: String) -> (word: String, start: String.Index)? {
        guard sql.last == "." else { return nil }
        let dot = sql.index(before: sql.endIndex)
        var start = dot
        while start > sql.startIndex {
            let previous = sql.index(before: start)
            guard isWordCharacter(sql[previous]) else { break }
            start = previous
        }
        guard start < dot else { return nil }
        return (String(sql[start..<dot]), start)
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_")
    }

    // MARK: - Scanning

    /// Refuses what SmartStore refuses, and what is not a query at all.
    static func requireSelect(_ smartSQL: String) throws {
        let firstWord = smartSQL.drop { $0.isWhitespace }.prefix { $0.isLetter }.lowercased()
        guard firstWord == "select" || firstWord == "with" else {
            throw SoupError(.invalidSmartSQL, "Only SELECT are supported")
        }
    }

    /// The query cut into text and references.
    ///
    /// The scan runs over UTF-8 bytes: every character it looks for is ASCII, and a multi-byte
    /// character never holds an ASCII byte. Positions in messages count characters.
    /// - Throws: ``SoupError/Code/invalidSmartSQL`` for a `{` never closed, or `{}`.
    static func segments(_ smartSQL: String) throws -> [Segment] {
        let bytes = Array(smartSQL.utf8)
        var segments: [Segment] = []
        var textStart = 0
        var quote: (isOpen: Bool, convertsBraces: Bool) = (false, false)
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "'") {
                quote = quote.isOpen ? (false, false) : (true, followsMatch(bytes, position))
            } else if byte == UInt8(ascii: "{"), !quote.isOpen || quote.convertsBraces {
                guard let close = bytes[position...].firstIndex(of: UInt8(ascii: "}")), close > position + 1 else {
                    let rest = String(decoding: bytes[position...], as: UTF8.self).prefix(40)
                    let characterPosition = characterPosition(ofOffset: position, in: smartSQL)
                    throw SoupError(
                        .invalidSmartSQL, "Invalid soup/path reference \(rest) at character \(characterPosition)")
                }
                if textStart < position {
                    segments.append(.text(String(decoding: bytes[textStart..<position], as: UTF8.self)))
                }
                segments.append(
                    .reference(
                        content: String(decoding: bytes[(position + 1)..<close], as: UTF8.self),
                        offset: position,
                        isQualified: position > 0 && bytes[position - 1] == UInt8(ascii: ".")))
                position = close + 1
                textStart = position
                continue
            }
            position += 1
        }
        if textStart < bytes.count { segments.append(.text(String(decoding: bytes[textStart...], as: UTF8.self))) }
        return segments
    }

    /// Whether the quote at `position` opens the operand of a full-text `MATCH` (the uppercase
    /// word, then spaces), whose braces SmartStore converts.
    /// The 0-based character position of UTF-8 offset `offset` in `text`, as messages give it.
    static func characterPosition(ofOffset offset: Int, in text: String) -> Int {
        String(decoding: text.utf8.prefix(offset), as: UTF8.self).count
    }

    private static func followsMatch(_ bytes: [UInt8], _ position: Int) -> Bool {
        var end = position
        while end > 0, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
        guard end < position, end >= 5 else { return false }
        return bytes[(end - 5)..<end].elementsEqual("MATCH".utf8)
    }
}
