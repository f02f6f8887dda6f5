import Determinism
import LosslessJSON
import SalesforceAPI

extension OrgStore {
    /// Converts one written value to its stored form, answering Salesforce's errors for values
    /// of the wrong shape or length.
    func normalizedValue(_ value: JSONValue, field: FieldSchema, object: ObjectSchema) throws(APIFailure) -> JSONValue {
        if value == .null { return .null }
        if field.type.isText {
            let text: String
            switch value {
            case .string(let string): text = string
            case .number(let number): text = number.text
            case .bool(let bool): text = bool ? "true" : "false"
            default: throw Self.cannotDeserialize(field, value)
            }
            // Salesforce stores an empty text value as null.
            if text.isEmpty { return .null }
            if field.type == .reference { return try referenceValue(text, field: field) }
            if let length = field.length, text.count > length {
                throw APIFailure(
                    errorCode: "STRING_TOO_LONG",
                    message: "\(field.label): data value too large: \(text) (max length=\(length))",
                    fields: [field.name])
            }
            return .string(text)
        }
        return try scalarValue(value, field: field)
    }

    private func scalarValue(_ value: JSONValue, field: FieldSchema) throws(APIFailure) -> JSONValue {
        switch field.type {
        case .boolean:
            guard case .bool = value else { throw Self.cannotDeserialize(field, value) }
            return value
        case .int, .double, .currency, .percent:
            let number: JSONNumber?
            switch value {
            case .number(let given): number = given
            case .string(let text): number = JSONNumber(text: text)
            default: number = nil
            }
            guard let number, number.doubleValue.isFinite else { throw Self.cannotDeserialize(field, value) }
            if field.type == .int && number.int64Value == nil { throw Self.cannotDeserialize(field, value) }
            return .number(number)
        case .date:
            guard let text = value.string, let time = WallTime(iso8601: String(text.prefix(10)) + "T00:00:00Z") else {
                throw Self.cannotDeserialize(field, value)
            }
            return .string(String(time.salesforceFormat.prefix(10)))
        case .datetime:
            guard let text = value.string, let time = WallTime(iso8601: text) else {
                throw Self.cannotDeserialize(field, value)
            }
            let second = SOQLParser.floorToSecond(time.millisecondsSinceEpoch)
            return .string(WallTime(millisecondsSinceEpoch: second).salesforceFormat)
        default:
            throw Self.cannotDeserialize(field, value)
        }
    }

    /// A lookup value: a well-formed id of a live record of the referenced type.
    private func referenceValue(_ text: String, field: FieldSchema) throws(APIFailure) -> JSONValue {
        guard let id = SalesforceID(text)?.rawValue else {
            throw APIFailure.malformedID(text, field: field.name, label: field.label)
        }
        guard let target = record(id), target.object.name.lowercased() == field.referenceTo?.lowercased() else {
            throw APIFailure(
                errorCode: "INVALID_CROSS_REFERENCE_KEY", message: "invalid cross reference id", fields: [field.name])
        }
        // A lookup to a record in the recycle bin is refused with 400 (not 404), so Mobile Sync
        // can tell "the parent is gone" from "this record is gone".
        if Self.isDeleted(target.fields) { throw APIFailure.entityIsDeleted(status: 400, fields: [field.name]) }
        return .string(id)
    }

    static func cannotDeserialize(_ field: FieldSchema, _ value: JSONValue) -> APIFailure {
        APIFailure.jsonParser(
            "Cannot deserialize instance of \(field.type.rawValue) from \(value.serializedString) value for field "
                + field.name)
    }
}
