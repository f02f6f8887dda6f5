import Foundation

/// Durations of repeated operations, summarized as percentiles.
struct LatencySample {
    private(set) var microseconds: [Double] = []

    mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        microseconds.append(Double(seconds) * 1e6 + Double(attoseconds) / 1e12)
    }

    func percentile(_ fraction: Double) -> Double {
        guard !microseconds.isEmpty else { return 0 }
        let sorted = microseconds.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    var summary: String {
        String(format: "p50 %.1f µs, p99 %.1f µs", percentile(0.5), percentile(0.99))
    }
}
