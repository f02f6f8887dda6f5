import Foundation

/// Durations of repeated operations, summarized as percentiles.
public struct LatencySample: Sendable {
    public private(set) var microseconds: [Double] = []

    public init() {}

    public mutating func record(_ duration: Duration) {
        microseconds.append(duration.inSeconds * 1e6)
    }

    /// The value below which `fraction` of the samples lie (0.5 for the median); 0 with no sample.
    public func percentile(_ fraction: Double) -> Double {
        guard !microseconds.isEmpty else { return 0 }
        let sorted = microseconds.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// "p50 …, p99 …" in microseconds, for the human-readable lines.
    public var summary: String {
        String(format: "p50 %.1f µs, p99 %.1f µs", percentile(0.5), percentile(0.99))
    }
}
