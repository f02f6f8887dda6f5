import ArgumentParser

/// The input checks the subcommands' `validate()` share.
enum OptionCheck {
    /// Throws when a value named in `values` is below `minimum`, naming its option.
    static func atLeast(_ minimum: Int, _ values: KeyValuePairs<String, Int>) throws {
        for (option, value) in values where value < minimum {
            throw ValidationError("--\(option) must be at least \(minimum), not \(value)")
        }
    }
}
