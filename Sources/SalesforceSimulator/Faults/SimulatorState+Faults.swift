import Determinism

extension SimulatorState {
    /// The longest latency a plan can add to one request, so a mistyped plan cannot stall a run.
    static let faultLatencyMax: Duration = .seconds(60)

    /// What the fault plan does to one request.
    struct FaultDraw {
        var response: SimulatorResponse?
        var dropsBeforeCommit = false
        var dropsAfterCommit = false
        var latency: Duration = .zero
    }

    /// Draws the faults for a request: the first matching rule that fires, then the global
    /// 5xx rate, plus latency. Draws use the plan's seeded generator, so a plan replays exactly.
    mutating func drawFault(method: String, path: String) -> FaultDraw {
        var draw = FaultDraw()
        draw.latency = .milliseconds(min(max(0, faultPlan.latencyMs ?? 0), 60_000))
        for (index, rule) in (faultPlan.rules ?? []).enumerated() where Self.matches(rule, method: method, path: path) {
            if let count = rule.count, faultRuleHits[index, default: 0] >= count { continue }
            if let rate = rule.rate, unitDraw() >= rate { continue }
            faultRuleHits[index, default: 0] += 1
            draw.latency += .milliseconds(min(max(0, rule.latencyMs ?? 0), 60_000))
            switch rule.drop {
            case .beforeCommit: draw.dropsBeforeCommit = true
            case .afterCommit: draw.dropsAfterCommit = true
            case nil: break
            }
            if let status = rule.status {
                let code = rule.errorCode ?? (status >= 500 ? "SERVER_UNAVAILABLE" : "FAULT_INJECTED")
                draw.response = Self.response(
                    RouteResult(
                        APIFailure(status: status, errorCode: code, message: rule.message ?? "Injected fault")))
            }
            draw.latency = min(draw.latency, Self.faultLatencyMax)
            return draw
        }
        draw.latency = min(draw.latency, Self.faultLatencyMax)
        if let rate = faultPlan.serverErrorRate, rate > 0, unitDraw() < rate {
            draw.response = Self.response(
                RouteResult(
                    APIFailure(
                        status: 503, errorCode: "SERVER_UNAVAILABLE",
                        message: "Server is temporarily unavailable (injected).")))
        }
        return draw
    }

    static func matches(_ rule: FaultRule, method: String, path: String) -> Bool {
        if let wanted = rule.method, wanted.uppercased() != method { return false }
        return path.hasPrefix(rule.path)
    }

    /// A uniform draw in [0, 1).
    mutating func unitDraw() -> Double {
        Double(faultRandom.next() >> 11) / Double(UInt64(1) << 53)
    }
}
