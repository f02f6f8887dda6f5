import Foundation
import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

@Suite struct SalesforceClientTests {
    static func accounts(_ count: Int) -> SimulatorData {
        SimulatorData(records: (1...count).map { (type: "Account", fields: ["Name": .string("Account \($0)")]) })
    }

    @Test func queryPagesFiveThousandRecordsInTwentyFivePagesOfTwoHundred() async throws {
        try await LoopbackOrg.with(data: Self.accounts(5000)) { org in
            var page = try await org.client.query("SELECT Id, Name FROM Account", batchSize: 200)
            var pages = [page]
            while let next = page.nextRecordsURL {
                page = try await org.client.queryMore(nextRecordsURL: next)
                pages.append(page)
            }
            #expect(pages.count == 25)
            #expect(pages.allSatisfy { $0.records.count == 200 && $0.totalSize == 5000 })
            #expect(pages.last?.done == true)
            let names = pages.flatMap(\.records).compactMap { $0["Name"]?.string }
            #expect(Set(names) == Set((1...5000).map { "Account \($0)" }))
            #expect(names.count == 5000)
            let log = try await org.requestLog()
            let headers = log.map { $0["headers"]?["sforce-query-options"]?.string }
            #expect(headers.first == "batchSize=200")
            #expect(headers.dropFirst().allSatisfy { $0 == nil })
        }
    }

    @Test func defaultBatchSizeSendsNoHeaderAndPagesByTwoThousand() async throws {
        try await LoopbackOrg.with(data: Self.accounts(2500)) { org in
            let page = try await org.client.query("SELECT Id FROM Account", batchSize: 5000)
            #expect(page.records.count == 2000)
            #expect(page.nextRecordsURL?.hasSuffix("-2000") == true)
            let log = try await org.requestLog()
            #expect(log.first?["headers"]?["sforce-query-options"] == nil)
        }
    }

    @Test func createRetrieveUpdateDeleteRoundTrip() async throws {
        try await LoopbackOrg.with { org in
            let created = try await org.client.create(
                type: "Account", fields: ["Name": "Round Trip", "NumberOfEmployees": 12])
            let id = try #require(created.id)
            #expect(created.success)
            let fetched = try await org.client.retrieve(type: "account", id: id, fields: ["name", "numberOfEmployees"])
            #expect(fetched["Name"]?.string == "Round Trip")
            #expect(fetched["NumberOfEmployees"]?.number?.text == "12")
            #expect(fetched["Id"]?.string == id)
            try await org.client.update(type: "Account", id: id, fields: ["Name": "Renamed"])
            #expect(try await org.client.retrieve(type: "Account", id: id)["Name"]?.string == "Renamed")
            try await org.client.delete(type: "Account", id: id)
            await #expect(throws: SalesforceError.self) { try await org.client.retrieve(type: "Account", id: id) }
            do {
                try await org.client.update(type: "Account", id: id, fields: ["Name": "Again"])
                Issue.record("update of a deleted record succeeded")
            } catch let error as SalesforceError {
                #expect(error.httpStatus == 404)
                #expect(error.errorCode == "ENTITY_IS_DELETED")
            }
            let all = try await org.client.queryAll("SELECT Id, IsDeleted FROM Account WHERE Id = '\(id)'")
            #expect(all.records.first?["IsDeleted"]?.bool == true)
            #expect(try await org.client.query("SELECT Id FROM Account").totalSize == 0)
        }
    }

    @Test func upsertCreatesThenUpdatesByExternalID() async throws {
        try await LoopbackOrg.with { org in
            let first = try await org.client.upsert(
                type: "Account", externalIDField: "ExternalId__c", value: "EXT-1", fields: ["Name": "Upserted"])
            #expect(first.created == true)
            let second = try await org.client.upsert(
                type: "Account", externalIDField: "ExternalId__c", value: "EXT-1", fields: ["Name": "Upserted again"])
            #expect(second.created == false)
            #expect(second.id == first.id)
            let byID = try await org.client.upsert(
                type: "Account", externalIDField: "Id", value: first.id ?? "", fields: ["Name": "By Id"])
            #expect(byID.created == false)
            let result = try await org.client.query("SELECT Name, ExternalId__c FROM Account")
            #expect(result.records.map { $0["Name"]?.string } == ["By Id"])
        }
    }

    @Test func searchRecentItemsAndDescribeAnswer() async throws {
        try await LoopbackOrg.with(data: Self.accounts(3)) { org in
            let created = try await org.client.create(type: "Account", fields: ["Name": "Zephyr Searchable"])
            let found = try await org.client.search("FIND {zephyr} IN NAME FIELDS RETURNING Account(Id, Name)")
            #expect(found.map { $0["Name"]?.string } == ["Zephyr Searchable"])
            let info = try await org.client.recentItems(type: "Account")
            #expect(info.recentItems.first?["Id"]?.string == created.id)
            #expect(info.objectDescribe["keyPrefix"]?.string == "001")
            let describe = try await org.client.describe(type: "Contact")
            #expect(describe["fields"]?.array?.contains { $0["name"]?.string == "AccountId" } == true)
        }
    }

    @Test func compositeResolvesReferencesAndReportsEachSubrequest() async throws {
        try await LoopbackOrg.with { org in
            let version = org.client.dataPath
            let responses = try await org.client.composite([
                CompositeSubrequest(
                    method: "POST", url: "\(version)/sobjects/Account", body: ["Name": "Parent"], referenceID: "parent"),
                CompositeSubrequest(
                    method: "POST", url: "\(version)/sobjects/Contact",
                    body: ["LastName": "Child", "AccountId": "@{parent.id}"], referenceID: "child"),
                CompositeSubrequest(
                    method: "GET", url: "\(version)/sobjects/Account/@{parent.id}?fields=Name", referenceID: "read"),
                CompositeSubrequest(
                    method: "DELETE", url: "\(version)/sobjects/Contact/003000000000099AAA", referenceID: "missing"),
            ])
            #expect(responses.map(\.httpStatusCode) == [201, 201, 200, 404])
            #expect(responses[0].httpHeaders["Location"]?.contains("/sobjects/Account/") == true)
            #expect(responses[2].body["Name"]?.string == "Parent")
            #expect(responses[3].body.array?.first?["errorCode"]?.string == "NOT_FOUND")
            let child = try await org.client.query("SELECT Account.Name FROM Contact")
            #expect(child.records.first?["Account"]?["Name"]?.string == "Parent")
        }
    }

    @Test func compositeAllOrNoneRollsBackAndHaltsTheOthers() async throws {
        try await LoopbackOrg.with { org in
            let version = org.client.dataPath
            let responses = try await org.client.composite(
                [
                    CompositeSubrequest(
                        method: "POST", url: "\(version)/sobjects/Account", body: ["Name": "Kept?"], referenceID: "a"),
                    CompositeSubrequest(
                        method: "POST", url: "\(version)/sobjects/Account", body: ["Bogus__c": 1], referenceID: "b"),
                    CompositeSubrequest(
                        method: "POST", url: "\(version)/sobjects/Account", body: ["Name": "Never"], referenceID: "c"),
                ], allOrNone: true)
            #expect(responses.map(\.httpStatusCode) == [400, 400, 400])
            #expect(
                responses.map { $0.body.array?.first?["errorCode"]?.string } == [
                    "PROCESSING_HALTED", "INVALID_FIELD", "PROCESSING_HALTED",
                ])
            #expect(try await org.client.query("SELECT Id FROM Account").totalSize == 0)
        }
    }

    @Test func collectionsCreateUpdateUpsertRetrieveAndDelete() async throws {
        try await LoopbackOrg.with { org in
            let created = try await org.client.collectionCreate(records: [
                ["attributes": ["type": "Account"], "Name": "One"],
                ["attributes": ["type": "Contact"], "LastName": "Two"],
                ["attributes": ["type": "Account"]],
            ])
            #expect(created.map(\.success) == [true, true, false])
            #expect(created[2].errors.first?.errorCode == "REQUIRED_FIELD_MISSING")
            let account = try #require(created[0].id)
            let contact = try #require(created[1].id)
            let updated = try await org.client.collectionUpdate(records: [
                ["attributes": ["type": "Account"], "Id": .string(account), "Name": "One!"],
                ["attributes": ["type": "Account"], "Id": "001000000000099AAA", "Name": "Ghost"],
            ])
            #expect(updated.map(\.success) == [true, false])
            #expect(updated[1].errors.first?.errorCode == "INVALID_CROSS_REFERENCE_KEY")
            let upserted = try await org.client.collectionUpsert(
                type: "Account", externalIDField: "ExternalId__c",
                records: [["attributes": ["type": "Account"], "ExternalId__c": "X-9", "Name": "Nine"]])
            #expect(upserted.first?.created == true)
            let deleted = try await org.client.collectionDelete(ids: [contact, "bad-id"])
            #expect(deleted.map(\.success) == [true, false])
            #expect(deleted[1].errors.first?.errorCode == "MALFORMED_ID")
            let retrieved = try await org.client.collectionRetrieve(
                type: "Account", ids: [account, contact], fields: ["Name"])
            #expect(retrieved.first?["Name"]?.string == "One!")
            #expect(retrieved.last == .null)
        }
    }

    @Test func clientRefusesOverLimitBatchesBeforeSending() async throws {
        try await LoopbackOrg.with { org in
            let record: JSONValue = ["attributes": ["type": "Account"], "Name": "x"]
            let records = Array(repeating: record, count: 201)
            let create = await #expect(throws: SalesforceError.self) {
                try await org.client.collectionCreate(records: records)
            }
            #expect(create?.code == .invalidRequest)
            let subrequests = (0..<26).map { CompositeSubrequest(method: "GET", url: "/x", referenceID: "r\($0)") }
            let composite = await #expect(throws: SalesforceError.self) { try await org.client.composite(subrequests) }
            #expect(composite?.code == .invalidRequest)
            let retrieve = await #expect(throws: SalesforceError.self) {
                try await org.client.collectionRetrieve(
                    type: "Account", ids: Array(repeating: "a", count: 2001), fields: [])
            }
            #expect(retrieve?.code == .invalidRequest)
            let log = try await org.requestLog()
            #expect(log.isEmpty)
        }
    }

    @Test func concurrentWritesEachGetTheirOwnRecord() async throws {
        try await LoopbackOrg.with { org in
            let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await org.client.create(type: "Contact", fields: ["LastName": .string("Parallel \(index)")])
                            .id
                    }
                }
                var ids: [String] = []
                for try await id in group { ids += id.map { [$0] } ?? [] }
                return ids
            }
            #expect(Set(ids).count == 40)
            #expect(try await org.client.query("SELECT COUNT() FROM Contact").totalSize == 40)
        }
    }
}
