public import Determinism
public import LosslessJSON

/// The records every soup benchmark stores: about 1 KB each, four indexed fields, generated
/// from a seed so every run, and every store in a run, holds the same data.
public enum BenchmarkRecords {
    /// The indexed paths and their types, as `(path, SmartStore type)`.
    public static let indexedPaths = [
        ("Id", "string"), ("Name", "string"), ("AnnualRevenue", "integer"), ("Rating", "floating"),
    ]

    /// The record at `index`; `generator` supplies its name, revenue and rating.
    public static func record(_ index: Int, using generator: inout SplitMix64) -> JSONValue {
        let description = String(repeating: "lorem ipsum dolor sit amet ", count: 34)
        return [
            "Id": .string(id(index)),
            "Name": .string("Account \(UInt64.random(in: 0..<1_000_000_000, using: &generator))"),
            "AnnualRevenue": .number(JSONNumber(Int64.random(in: 0..<10_000_000, using: &generator))),
            "Rating": .number(JSONNumber(Double(Int.random(in: 0..<5000, using: &generator)) / 1000)),
            "Industry": .string(["Energy", "Retail", "Banking", "Media"][index & 3]),
            "Description": .string(description),
            "attributes": ["type": "Account"],
        ]
    }

    /// A Salesforce-looking 18-character id, unique per index.
    public static func id(_ index: Int) -> String {
        let digits = String(index)
        return "001" + String(repeating: "0", count: 15 - digits.count) + digits
    }
}
