import Foundation

/// Shows the progress of long work on standard error: a bar redrawn in place on a terminal,
/// plain lines at every tenth otherwise (so logs and CI output stay readable).
///
/// ```swift
/// let progress = ProgressReporter("importing")
/// try journal.importEntries(from: file) { done, total in progress.update(done, of: total) }
/// progress.finish()
/// ```
///
/// Standard output stays free for the command's result.
public final class ProgressReporter {
    /// Characters in the bar.
    public static let barWidth = 30

    private let label: String
    private let isTerminal: Bool
    private let write: (String) -> Void
    private var lastTenth = -1
    private var drewBar = false

    /// Creates a reporter writing to standard error, as a bar when it is a terminal.
    public convenience init(_ label: String) {
        self.init(label, isTerminal: isatty(FileHandle.standardError.fileDescriptor) == 1) { text in
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    /// Creates a reporter that hands its text to `write`.
    public init(_ label: String, isTerminal: Bool, write: @escaping (String) -> Void) {
        self.label = label
        self.isTerminal = isTerminal
        self.write = write
    }

    /// Reports that `done` of `total` units are finished. A `total` of 0 or less means unknown.
    public func update(_ done: UInt64, of total: UInt64) {
        update(Int64(clamping: done), of: Int64(clamping: total))
    }

    /// Reports that `done` of `total` units are finished. A `total` of 0 or less means unknown.
    public func update(_ done: Int64, of total: Int64) {
        let percent = total > 0 ? Int(min(100, max(0, done * 100 / total))) : nil
        if isTerminal {
            let bar: String
            if let percent {
                let filled = percent * Self.barWidth / 100
                bar =
                    "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: Self.barWidth - filled)
                    + "] \(percent)%"
            } else {
                bar = "[" + String(repeating: "?", count: Self.barWidth) + "]"
            }
            write("\r\(label) \(bar) \(done)/\(total > 0 ? String(total) : "?")")
            drewBar = true
        } else {
            // One line per tenth reached, so a long job prints at most eleven lines.
            let tenth = percent.map { $0 / 10 } ?? lastTenth
            guard tenth > lastTenth else { return }
            lastTenth = tenth
            write("\(label): \(percent ?? 0)% (\(done)/\(total))\n")
        }
    }

    /// Ends the bar's line on a terminal; does nothing otherwise.
    public func finish() {
        if isTerminal, drewBar { write("\n") }
        drewBar = false
    }
}
