/// A benchmark that could not measure what it was asked to, in one line for the person running it.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String {
        message
    }
}
