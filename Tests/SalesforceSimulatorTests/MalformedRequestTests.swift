import Determinism
import Foundation
import Logging
import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

/// Sends seeded random malformed requests and checks the simulator keeps answering correctly.
@Suite struct MalformedRequestTests {
    static let requestCount = 1200

    static let methods = ["GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "BREW", ""]
    static let paths = [
        "/services/data/v66.0/query", "/services/data/v66.0/queryAll", "/services/data/v66.0/search",
        "/services/data/v66.0/sobjects/Account", "/services/data/v66.0/sobjects/Contact/",
        "/services/data/v66.0/composite", "/services/data/v66.0/composite/sobjects",
        "/services/data/v66.0/composite/sobjects/Account/ExternalId__c", "/services/data/v66.0/query/01g",
        "/services/oauth2/token", "/services/data/", "/services/data/v66.0", "/", "/services/data/vX/query",
    ]
    static let soql = [
        "SELECT Id, Name FROM Account WHERE Name = 'Acme'", "SELECT Name, (SELECT Name FROM Contacts) FROM Account",
        "SELECT Name FROM Contact WHERE Account.Name LIKE 'A%' ORDER BY Name DESC NULLS LAST LIMIT 2 OFFSET 1",
        "FIND {Acme} IN NAME FIELDS RETURNING Account(Name WHERE Industry = 'Retail')",
        "SELECT Id FROM Account WHERE CreatedDate > 2024-01-01T00:00:00Z AND (Rating = null OR Rating IN ('Hot'))",
    ]
    static let junk = [
        "'", "\"", "(", ")", "\\", "%", "%ZZ", "{", "}", ",", "=", "<>", "\u{0}", "é", "🙂", " AND ", " OR ",
    ]
    static let bodies = [
        "{", "[]", "null", "{\"records\": 5}", "{\"compositeRequest\": [{}]}", "{\"Name\": [1,2]}",
        "{\"allOrNone\": true, \"records\": [{\"attributes\": {}}]}", "{\"ids\": \"x\"}", "\u{FF}\u{FE}",
        "{\"compositeRequest\": [{\"method\": \"GET\", \"url\": \"@{x.y}\", \"referenceId\": \"r\"}]}",
    ]

    @Test func simulatorSurvivesSeededMalformedRequestsAndStillAnswers() async throws {
        let harness = try SimulatorHarness()
        var random = SplitMix64(seed: 20_241_123)
        var statuses: Set<Int> = []
        for _ in 0..<Self.requestCount {
            let request = Self.randomRequest(&random)
            let response = await harness.simulator.handle(request)
            statuses.insert(response.status)
            #expect((200..<600).contains(response.status) && response.status != 500, "\(request)")
            if !response.body.isEmpty {
                #expect((try? JSONValue(parsing: response.body)) != nil, "\(request)")
            }
        }
        // The mix reaches past routing and authentication into the handlers.
        #expect(statuses.isSuperset(of: [200, 400, 401, 404]), "\(statuses.sorted())")
        let (status, json) = await harness.query("SELECT Name FROM Account WHERE Name = 'Acme'")
        #expect(status == 200)
        #expect(json["records"]?[0]?["Name"]?.string == "Acme")
        let (_, all) = await harness.query("SELECT COUNT() FROM Contact WHERE LastName = 'Smith'")
        #expect(all["totalSize"]?.number?.int64Value == 2)
    }

    @Test func serverSurvivesMalformedRequestsOverHTTP() async throws {
        let harness = try SimulatorHarness()
        let logger = Logger.discarding
        let server = try await SimulatorServer.start(harness.simulator, logger: logger)
        let transport = URLSessionTransport()
        var random = SplitMix64(seed: 99)
        var answered = 0
        for _ in 0..<100 {
            var request = Self.randomRequest(&random)
            request.method = ["GET", "POST", "PATCH", "DELETE"][Int(random.next() % 4)]
            let target = server.url.absoluteString + request.path + "?" + request.query
            guard let url = URL(string: target) else { continue }
            let response = try? await transport.send(
                TransportRequest(method: request.method, url: url, headers: request.headers, body: Data(request.body)))
            if let response, (200..<600).contains(response.status) { answered += 1 }
        }
        #expect(answered > 50)
        let valid = try await transport.send(
            TransportRequest(
                method: "GET",
                url: try #require(
                    URL(
                        string: server.url.absoluteString
                            + "/services/data/v66.0/query?q=SELECT+Name+FROM+Account+LIMIT+1")),
                headers: ["Authorization": "Bearer \(SimulatorHarness.token)"]))
        await server.stop()
        #expect(valid.status == 200)
        #expect(try JSONValue(parsing: valid.body)["records"]?[0]?["Name"]?.string == "Acme")
    }

    static let soqlTokens = [
        "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "ORDER", "BY", "LIMIT", "OFFSET", "IN", "LIKE", "NULLS", "LAST",
        "DESC", "COUNT()", "Name", "Id", "Account", "Contact", "Contacts", "Account.Name", "Owner.Name", "CreatedDate",
        "NumberOfEmployees", "Tags__c", "INCLUDES", "(", ")", ",", "=", "!=", "<", ">=", "'Acme'", "'%a_'", "5",
        "-2.5", "null", "TRUE", "2024-01-01", "2024-01-01T00:00:00Z", "TODAY", "LAST_N_DAYS", ":", "3", "THIS_MONTH",
    ]

    @Test func soqlTokenSoupAlwaysGetsAQueryAnswer() async throws {
        let harness = try SimulatorHarness()
        var random = SplitMix64(seed: 77)
        var answered: [Int: Int] = [:]
        for _ in 0..<1500 {
            var tokens = ["SELECT"]
            for _ in 0..<(2 + random.next() % 14) { tokens.append(Self.pick(Self.soqlTokens, &random)) }
            let (status, json) = await harness.query(tokens.joined(separator: " "))
            answered[status, default: 0] += 1
            #expect(status == 200 || status == 400, "\(tokens.joined(separator: " "))")
            #expect(status == 200 ? json["records"] != nil : SimulatorHarness.errorCode(json) != nil)
        }
        #expect(answered[400, default: 0] > 0)
    }

    static func pick<T>(_ list: [T], _ random: inout SplitMix64) -> T {
        list[Int(random.next() % UInt64(list.count))]
    }

    /// Mutates valid text: truncates it, or inserts, deletes or replaces a piece at random.
    static func mutate(_ text: String, _ random: inout SplitMix64) -> String {
        var characters = Array(text)
        for _ in 0...(random.next() % 3) {
            let position = characters.isEmpty ? 0 : Int(random.next() % UInt64(characters.count))
            switch random.next() % 4 {
            case 0: characters = Array(characters.prefix(position))
            case 1: characters.insert(contentsOf: pick(junk, &random), at: position)
            case 2: if position < characters.count { characters.remove(at: position) }
            default:
                characters.replaceSubrange(position..<min(position + 3, characters.count), with: pick(junk, &random))
            }
        }
        return String(characters)
    }

    static func randomRequest(_ random: inout SplitMix64) -> SimulatorRequest {
        var path = pick(paths, &random)
        if random.next() % 3 == 0 { path += "/" + mutate(SOQLFixture.account(UInt64(random.next() % 8)), &random) }
        if random.next() % 5 == 0 { path = mutate(path, &random) }
        let q = SimulatorHarness.encode(mutate(pick(soql, &random), &random))
        let query = random.next() % 4 == 0 ? mutate("q=\(q)&ids=a,b", &random) : "q=\(q)"
        let body = random.next() % 2 == 0 ? Array(mutate(pick(bodies, &random), &random).utf8) : []
        var headers = ["Authorization": "Bearer \(SimulatorHarness.token)"]
        if random.next() % 6 == 0 { headers["Authorization"] = mutate("Bearer junk", &random) }
        if random.next() % 4 == 0 { headers["Sforce-Query-Options"] = mutate("batchSize=200", &random) }
        return SimulatorRequest(method: pick(methods, &random), path: path, query: query, headers: headers, body: body)
    }
}
