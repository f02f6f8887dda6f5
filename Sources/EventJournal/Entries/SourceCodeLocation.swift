/// Where in the source code an error was made: what the errors of every module
/// (``JournalError``, and Mobile Sync's and replay's) record for logs and bug reports.
public struct SourceCodeLocation: Hashable, Sendable {
    /// The file, as `#fileID` gives it.
    public var fileID: String
    /// The line.
    public var line: Int

    /// Creates a location.
    /// - Parameters:
    ///   - fileID: the file, as `#fileID` gives it.
    ///   - line: the line.
    public init(fileID: String, line: Int) {
        self.fileID = fileID
        self.line = line
    }
}
