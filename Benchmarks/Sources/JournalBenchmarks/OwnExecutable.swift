import Foundation

/// This process's executable, which the benchmarks that need child processes start again
/// (`recovery-child`) or look beside (`sqlcipher-baseline`).
enum OwnExecutable {
    static func url() throws -> URL {
        guard let url = Bundle.main.executableURL else {
            throw BenchmarkFailure("cannot tell where journal-benchmarks' executable is")
        }
        return url
    }
}
