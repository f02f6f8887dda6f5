import LosslessJSON
import SalesforceAPI
import SalesforceSimulator

/// A small org with known values for the SOQL interpreter tests.
enum SOQLFixture {
    static func account(_ number: UInt64) -> String { SalesforceID(keyPrefix: "001", counter: number).rawValue }
    static func contact(_ number: UInt64) -> String { SalesforceID(keyPrefix: "003", counter: number).rawValue }

    static let accounts: [[String: JSONValue]] = [
        [
            "Id": .string(account(1)), "Name": "Acme", "Industry": "Technology", "NumberOfEmployees": 100,
            "AnnualRevenue": 1_000_000, "Rating": "Hot", "BillingCity": "Paris", "Tags__c": "a;b",
            "CreatedDate": "2024-01-10T10:00:00.000+0000",
        ],
        [
            "Id": .string(account(2)), "Name": "Bravo", "Industry": "Retail", "NumberOfEmployees": 50,
            "AnnualRevenue": 200_000, "Rating": "Warm", "BillingCity": "Berlin", "Tags__c": "b",
            "CreatedDate": "2024-02-15T12:30:00.000+0000",
        ],
        [
            "Id": .string(account(3)), "Name": "charlie", "Industry": "Technology", "NumberOfEmployees": 500,
            "BillingCity": "Paris", "CreatedDate": "2024-03-01T00:00:00.000+0000",
        ],
        [
            "Id": .string(account(4)), "Name": "Delta", "Industry": "Finance", "AnnualRevenue": 5_000_000,
            "Rating": "Cold", "Tags__c": "c", "CreatedDate": "2024-03-01T23:59:59.000+0000",
        ],
        [
            "Id": .string(account(5)), "Name": "Echo 100%", "Industry": "Retail", "NumberOfEmployees": 10,
            "AnnualRevenue": 10, "Rating": "Hot", "BillingCity": "Oslo", "Description": "It's fine",
            "CreatedDate": "2023-12-31T23:59:59.000+0000",
        ],
        ["Id": .string(account(6)), "Name": "Foxtrot", "IsDeleted": true, "Industry": "Retail"],
    ]

    static let contacts: [[String: JSONValue]] = [
        [
            "Id": .string(contact(1)), "FirstName": "Ann", "LastName": "Smith", "AccountId": .string(account(1)),
            "Birthdate": "1980-05-01", "HasOptedOutOfEmail": false, "Email": "ann@acme.example",
        ],
        [
            "Id": .string(contact(2)), "FirstName": "Bob", "LastName": "Jones", "AccountId": .string(account(1)),
            "Birthdate": "1990-01-15", "HasOptedOutOfEmail": true,
        ],
        [
            "Id": .string(contact(3)), "FirstName": "Cid", "LastName": "Smith", "AccountId": .string(account(2)),
            "HasOptedOutOfEmail": false,
        ],
        [
            "Id": .string(contact(4)), "FirstName": "Dee", "LastName": "Stone", "Birthdate": "1975-07-04",
            "HasOptedOutOfEmail": false,
        ],
        [
            "Id": .string(contact(5)), "FirstName": "Eve", "LastName": "Young", "AccountId": .string(account(4)),
            "HasOptedOutOfEmail": false,
        ],
    ]

    static var data: SimulatorData {
        SimulatorData(
            records: accounts.map { (type: "Account", fields: $0) } + contacts.map { (type: "Contact", fields: $0) })
    }
}
