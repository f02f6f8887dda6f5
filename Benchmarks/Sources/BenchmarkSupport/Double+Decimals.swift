extension Double {
    /// The value rounded to `decimals` places, so a JSON figure reads `412.7`, not `412.71839203`.
    public func rounded(decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
