import Determinism
import EventJournal
public import LosslessJSON
public import MobileSync

extension RecordHistory {
    /// The events as `journal-replay blame --json` prints them, shared with the web inspector.
    public var eventsJSON: JSONValue {
        .array(
            events.map { event -> JSONValue in
                var object: [String: JSONValue] = [
                    "sequence": .number(JSONNumber(Int64(event.sequence))),
                    "timestamp": .string(event.timestamp.salesforceFormat),
                    "kind": .string(event.kind.rawValue),
                    "entryId": .number(JSONNumber(event.entryId)),
                    "action": .string(event.action),
                ]
                if let record = event.record { object["record"] = record }
                return .object(object)
            })
    }

    /// The line `blame` prints for `event`.
    ///
    /// - Parameter event: one event of a history.
    /// - Returns: one line, without a newline.
    public static func line(for event: Event) -> String {
        let record = event.record.map { " " + $0.serializedString }
        return "#\(event.sequence) \(event.timestamp.salesforceFormat) \(event.kind) \(event.action)\(record ?? "")"
    }
}
