public import ArgumentParser

/// `--shape`, for every benchmark that stores generated records: which ``RecordShape`` they have.
///
/// One option group shared by every subcommand (and by `sqlcipher-baseline`, which the soup
/// benchmark starts with the same shape), so the flag reads and fails the same everywhere.
public struct ShapeOptions: ParsableArguments, Sendable {
    @Option(
        help: """
            The shape of the generated records: lorem (~1 KB, mostly one repeated phrase; what every figure \
            before issue 48 measured) or org (standard objects as the REST API returns them).
            """)
    public var shape: RecordShape = .lorem

    public init() {}
}
