/// A SOQL `LIKE` pattern: `%` any run, `_` one character, `\%` and `\_` literal; case-insensitive.
struct SOQLPattern {
    private enum Element: Equatable {
        case literal(Character)
        case one
        case any
    }

    private let elements: [Element]

    init(_ pattern: String) {
        var elements: [Element] = []
        var escaping = false
        for character in pattern.uppercased() {
            if escaping {
                elements.append(.literal(character))
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "%" {
                elements.append(.any)
            } else if character == "_" {
                elements.append(.one)
            } else {
                elements.append(.literal(character))
            }
        }
        self.elements = elements
    }

    /// Whether the whole text matches; dynamic programming keeps it linear in pattern × text.
    func matches(_ text: String) -> Bool {
        let characters = Array(text.uppercased())
        var reachable = [Bool](repeating: false, count: characters.count + 1)
        reachable[0] = true
        for element in elements {
            var next = [Bool](repeating: false, count: characters.count + 1)
            for index in 0...characters.count where reachable[index] {
                switch element {
                case .any:
                    for later in index...characters.count { next[later] = true }
                case .one:
                    if index < characters.count { next[index + 1] = true }
                case .literal(let wanted):
                    if index < characters.count && characters[index] == wanted { next[index + 1] = true }
                }
                if element == .any { break }
            }
            reachable = next
        }
        return reachable[characters.count]
    }
}
