import ArgumentParser

/// The options every subcommand shares.
struct OutputOptions: ParsableArguments {
    @Flag(
        help: """
            Print the figures as one JSON document (sorted keys) on standard output; the human-readable \
            lines go to standard error instead.
            """)
    var json = false

    /// Where this run's lines and figures go.
    var report: Report {
        Report(printsJSON: json)
    }
}
