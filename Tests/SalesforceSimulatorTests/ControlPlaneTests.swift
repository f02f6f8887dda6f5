import Determinism
import Foundation
import Logging
import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

@Suite struct ControlPlaneTests {
    static func control(_ harness: SimulatorHarness, _ method: String, _ target: String, body: JSONValue? = nil) async
        -> (status: Int, json: JSONValue)
    {
        await harness.send(method, "/__simulator/" + target, body: body)
    }

    @Test func logicalClockAdvancesOneSecondPerWriteAndOnRequest() async throws {
        let harness = try SimulatorHarness(data: .empty)
        let first = await harness.send("POST", "sobjects/Account", body: ["Name": "One"])
        let second = await harness.send("POST", "sobjects/Account", body: ["Name": "Two"])
        _ = await Self.control(harness, "POST", "clock/advance?seconds=3600")
        let third = await harness.send("POST", "sobjects/Account", body: ["Name": "Three"])
        #expect(first.status == 201 && second.status == 201 && third.status == 201)
        let (_, json) = await harness.query(
            "SELECT Name, CreatedDate, SystemModstamp FROM Account ORDER BY CreatedDate")
        let stamps = json["records"]?.array?.map { $0["CreatedDate"]?.string } ?? []
        #expect(
            stamps == ["2024-01-01T00:00:01.000+0000", "2024-01-01T00:00:02.000+0000", "2024-01-01T01:00:03.000+0000"])
        let (_, newer) = await harness.query("SELECT Name FROM Account WHERE SystemModstamp > 2024-01-01T00:00:02Z")
        #expect(newer["records"]?.array?.map { $0["Name"]?.string } == ["Three"])
    }

    @Test func wallClockModeStampsTheInjectedTimeInWholeSeconds() async throws {
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_714_566_896_789))
        let simulator = try SalesforceSimulator(
            configuration: .init(accessToken: SimulatorHarness.token, clock: .wall(clock)),
            logger: Logger.discarding)
        let harness = SimulatorHarness(simulator: simulator)
        let created = await harness.send("POST", "sobjects/Account", body: ["Name": "Now"])
        let id = created.json["id"]?.string ?? ""
        let (_, record) = await harness.send("GET", "sobjects/Account/\(id)?fields=LastModifiedDate")
        #expect(record["LastModifiedDate"]?.string == "2024-05-01T12:34:56.000+0000")
        #expect(record.object?.keys.sorted() == ["Id", "LastModifiedDate", "attributes"])
    }

    /// A long transaction: the record is stamped with when it started, to the second, and the
    /// logical clock does not move; a start after the clock, or an unreadable one, is refused.
    @Test func aWriteCanCommitARecordDatedWhenItsTransactionStarted() async throws {
        let harness = try SimulatorHarness(data: .empty)
        let created = await harness.send("POST", "sobjects/Account", body: ["Name": "One"])
        let id = try #require(created.json["id"]?.string)
        _ = await Self.control(harness, "POST", "clock/advance?seconds=10")
        let dated = await Self.control(
            harness, "POST", "records",
            body: [
                "type": "Account", "id": .string(id), "fields": ["Name": "Late"],
                "modifiedAt": "2024-01-01T00:00:04.750Z",
            ])
        #expect(dated.status == 200)
        let (_, record) = await harness.send(
            "GET", "sobjects/Account/\(id)?fields=Name,LastModifiedDate,SystemModstamp")
        #expect(record["Name"]?.string == "Late")
        #expect(record["LastModifiedDate"]?.string == "2024-01-01T00:00:04.000+0000")
        #expect(record["SystemModstamp"]?.string == "2024-01-01T00:00:04.000+0000")
        let (_, clock) = await Self.control(harness, "GET", "clock")
        #expect(clock["now"]?.string == "2024-01-01T00:00:11.000+0000", "a dated write does not move the clock")
        let sameSecond = try harness.simulator.write(
            type: "Account", fields: ["Name": "Same second"], modifiedAt: harness.simulator.now)
        let (_, same) = await harness.send("GET", "sobjects/Account/\(sameSecond)?fields=CreatedDate")
        #expect(same["CreatedDate"]?.string == "2024-01-01T00:00:11.000+0000")
        let future = await Self.control(
            harness, "POST", "records",
            body: ["type": "Account", "fields": ["Name": "Future"], "modifiedAt": "2024-01-01T00:00:12.000+0000"])
        #expect(future.status == 400)
        #expect(future.json.array?.first?["message"]?.string?.contains("cannot start in the future") == true)
        let unreadable = await Self.control(
            harness, "POST", "records", body: ["type": "Account", "fields": ["Name": "X"], "modifiedAt": "soon"])
        #expect(unreadable.status == 400)
        #expect(throws: SimulatorError.self) {
            try harness.simulator.write(
                type: "Account", fields: ["Name": "Future"],
                modifiedAt: WallTime(millisecondsSinceEpoch: harness.simulator.now.millisecondsSinceEpoch + 1000))
        }
    }

    @Test func resetRestoresTheInitialOrgAndClearsTheLog() async throws {
        let harness = try SimulatorHarness()
        _ = await harness.send("DELETE", "sobjects/Account/\(SOQLFixture.account(1))")
        _ = await harness.send("POST", "sobjects/Account", body: ["Name": "Extra"])
        let reset = await Self.control(harness, "POST", "reset")
        #expect(reset.json["accessToken"]?.string == SimulatorHarness.token)
        let (_, json) = await harness.query("SELECT Name FROM Account")
        #expect(json["records"]?.array?.map { $0["Name"]?.string } == SOQLInterpreterTests.all)
        let log = await Self.control(harness, "GET", "requests")
        #expect(log.json.array?.count == 1)
    }

    @Test func requestLogKeepsSalesforceRequestsNewestLast() async throws {
        let harness = try SimulatorHarness()
        _ = await harness.query("SELECT Id FROM Account")
        _ = await harness.send("POST", "sobjects/Account", body: ["Name": "Logged"])
        _ = await Self.control(harness, "GET", "clock")
        let (_, log) = await Self.control(harness, "GET", "requests")
        #expect(log.array?.map { $0["method"]?.string } == ["GET", "POST"])
        #expect(log[1]?["body"]?.string == "{\"Name\":\"Logged\"}")
        #expect(log[1]?["status"]?.number?.int64Value == 201)
        #expect(log[0]?["headers"]?["authorization"]?.string == "Bearer \(SimulatorHarness.token)")
        _ = await Self.control(harness, "DELETE", "requests")
        #expect(await Self.control(harness, "GET", "requests").json.array?.isEmpty == true)
    }

    @Test func seededFaultPlansReplayIdentically() async throws {
        let plan = FaultPlan(seed: 5, serverErrorRate: 0.5)
        var runs: [[Int]] = []
        for _ in 0..<2 {
            let harness = try SimulatorHarness(faultPlan: plan)
            var statuses: [Int] = []
            for _ in 0..<40 { statuses.append(await harness.query("SELECT Id FROM Account").status) }
            runs.append(statuses)
        }
        #expect(runs[0] == runs[1])
        #expect(runs[0].contains(503) && runs[0].contains(200))
    }

    @Test func faultRulesMatchMethodAndPathAndCountDown() async throws {
        let harness = try SimulatorHarness()
        let plan = FaultPlan(rules: [
            FaultRule(
                method: "GET", path: "/services/data/v66.0/sobjects", status: 400, errorCode: "UNABLE_TO_LOCK_ROW",
                count: 1),
            FaultRule(path: "/services/data/v66.0/limits", latencyMs: 250),
        ])
        let put = await Self.control(harness, "PUT", "faults", body: try JSONValue(parsing: JSONEncoder().encode(plan)))
        #expect(put.status == 204)
        let locked = await harness.send("GET", "sobjects/Account/\(SOQLFixture.account(1))")
        #expect(SimulatorHarness.errorCode(locked.json) == "UNABLE_TO_LOCK_ROW")
        let fine = await harness.send("GET", "sobjects/Account/\(SOQLFixture.account(1))")
        #expect(fine.status == 200)
        let bad = await Self.control(harness, "PUT", "faults", body: ["rules": "nope"])
        #expect(bad.status == 400)
        let drop = try SimulatorHarness(
            faultPlan: FaultPlan(rules: [FaultRule(path: "/services", drop: .beforeCommit)]))
        let dropped = await drop.simulator.handle(
            SimulatorRequest(
                method: "POST", target: "/services/data/v66.0/sobjects/Account", body: Array("{\"Name\":\"x\"}".utf8)))
        #expect(dropped.dropsConnection)
    }

    @Test func latencyIsSleptOnTheInjectedClock() async throws {
        let clock = ImmediateClock()
        let simulator = try SalesforceSimulator(
            configuration: .init(accessToken: SimulatorHarness.token, faultPlan: FaultPlan(latencyMs: 120)),
            sleepClock: clock, logger: Logger.discarding)
        _ = await SimulatorHarness(simulator: simulator).query("SELECT Id FROM Account")
        #expect(clock.sleeps == [.milliseconds(120)])
    }

    @Test func tokenEndpointIssuesTokensAndRejectsBadGrants() async throws {
        let harness = try SimulatorHarness()
        func token(_ form: String) async -> (Int, JSONValue) {
            let response = await harness.simulator.handle(
                SimulatorRequest(method: "POST", target: "/services/oauth2/token", body: Array(form.utf8)))
            return (response.status, (try? JSONValue(parsing: response.body)) ?? .null)
        }
        let (status, json) = await token("grant_type=refresh_token&refresh_token=simulator-refresh-token&format=json")
        #expect(status == 200)
        let issued = try #require(json["access_token"]?.string)
        #expect(issued.hasPrefix("00D"))
        #expect(json["token_type"]?.string == "Bearer")
        let works = await harness.simulator.handle(
            SimulatorRequest(
                method: "GET", target: "/services/data/v66.0/limits", headers: ["Authorization": "Bearer \(issued)"]))
        #expect(works.status == 200)
        let (badStatus, bad) = await token("grant_type=refresh_token&refresh_token=wrong")
        #expect(badStatus == 400)
        #expect(bad["error"]?.string == "invalid_grant")
        let (_, unsupported) = await token("grant_type=password")
        #expect(unsupported["error"]?.string == "unsupported_grant_type")
    }
}

extension SimulatorHarness {
    init(simulator: SalesforceSimulator) {
        self.simulator = simulator
    }
}
