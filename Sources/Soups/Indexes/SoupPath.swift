package import LosslessJSON

/// Path projection into records, as Mobile SDK's `SmartStore.project` does it.
///
/// A path is split on `.`; through an object it takes the key's value; through an array it
/// applies the rest of the path to every element, drops the elements that give nothing, and
/// returns an array (nothing when that array is empty). An empty path is the whole record.
package enum SoupPath {
    /// The value at `path` in `value`, or `nil` when absent.
    ///
    /// - Parameter keepsNull: when `false` (the index form) a JSON null counts as absent;
    ///   when `true` (the `selectPaths` form) a present null is returned as `.null`.
    package static func project(_ value: JSONValue, _ path: String, keepsNull: Bool = false) -> JSONValue? {
        project(value, components: components(path), keepsNull: keepsNull)
    }

    /// A path's components; the empty path has none (it is the whole record).
    package static func components(_ path: String) -> [String] {
        path.isEmpty ? [] : path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// ``project(_:_:keepsNull:)`` for a path already split by ``components(_:)``.
    package static func project(_ value: JSONValue, components: [String], keepsNull: Bool = false) -> JSONValue? {
        if components.isEmpty { return value }
        // Most index paths are one member of an object: no recursion, no slices.
        if components.count == 1, case .object(let members) = value {
            guard let child = members[components[0]] else { return nil }
            if case .null = child, !keepsNull { return nil }
            return child
        }
        return project(value, components[...], keepsNull: keepsNull)
    }

    private static func project(_ value: JSONValue, _ components: ArraySlice<String>, keepsNull: Bool) -> JSONValue? {
        guard let head = components.first else {
            if case .null = value, !keepsNull { return nil }
            return value
        }
        switch value {
        case .object(let members):
            guard let child = members[head] else { return nil }
            return project(child, components.dropFirst(), keepsNull: keepsNull)
        case .array(let elements):
            // Mobile SDK drops the elements that give nothing, whichever form is asked for.
            let projected = elements.compactMap { element -> JSONValue? in
                guard let result = project(element, components, keepsNull: false) else { return nil }
                return result
            }
            return projected.isEmpty ? nil : .array(projected)
        default:
            return nil
        }
    }
}
