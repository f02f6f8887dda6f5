/// What the `sqlcipher-baseline` child prints on standard output, as one JSON document, for
/// `journal-benchmarks soup` to read.
public struct SQLCipherBaselineOutput: Codable, Sendable {
    /// SQLCipher's `PRAGMA cipher_version`, which also proves the library is SQLCipher.
    public var cipherVersion: String
    public var figures: SoupWorkloadFigures

    public init(cipherVersion: String, figures: SoupWorkloadFigures) {
        self.cipherVersion = cipherVersion
        self.figures = figures
    }
}
