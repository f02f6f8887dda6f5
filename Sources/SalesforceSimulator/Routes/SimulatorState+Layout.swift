import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    /// The layout types and modes the UI API knows.
    static let layoutTypes = ["Full", "Compact"]
    static let layoutModes = ["Create", "Edit", "View"]
    /// How many fields a compact layout shows.
    static let compactLayoutFieldCountMax = 4

    /// `GET ui-api/layout/<Type>?formFactor=&layoutType=&mode=&recordTypeId=`: a record layout
    /// made from the type's schema — one two-column section of its fields that users can
    /// write (the first four for `Compact`), each item a field component. `layoutType`
    /// defaults to `Full` and `mode` to `View`; the form factor does not change the layout.
    func layout(_ request: DataRequest, type: String) throws(APIFailure) -> RouteResult {
        guard let object = store.schema.object(named: type) else { throw APIFailure.notFound() }
        let layoutType = request.query["layoutType"] ?? "Full"
        let mode = request.query["mode"] ?? "View"
        guard Self.layoutTypes.contains(layoutType), Self.layoutModes.contains(mode) else {
            throw APIFailure(
                errorCode: "INVALID_PARAMETER_VALUE",
                message: "layoutType must be Full or Compact and mode Create, Edit or View.")
        }
        let recordTypeId = request.query["recordTypeId"] ?? Self.masterRecordTypeId
        var fields = object.fields.filter { !$0.isSystem && $0.name != "Id" }
        if layoutType == "Compact" { fields = Array(fields.prefix(Self.compactLayoutFieldCountMax)) }
        let items: [JSONValue] = fields.map { field in
            [
                "editableForNew": .bool(mode != "View"), "editableForUpdate": .bool(mode != "View"),
                "label": .string(field.label),
                "layoutComponents": [
                    ["apiName": .string(field.name), "componentType": "Field", "label": .string(field.label)]
                ],
                "lookupIdApiName": field.type == .reference ? .string(field.name) : .null,
                "required": .bool(field.isRequired), "sortable": false,
            ]
        }
        let rows: [JSONValue] = stride(from: 0, to: items.count, by: 2).map { start in
            ["layoutItems": .array(Array(items[start..<min(start + 2, items.count)]))]
        }
        let typeIndex = UInt64(store.schema.objects.firstIndex { $0.name == object.name } ?? 0)
        let layoutId = SalesforceID(keyPrefix: "00h", counter: typeIndex * 2 + (layoutType == "Full" ? 1 : 2)).rawValue
        let section: JSONValue = [
            "collapsible": false, "columns": 2, "heading": "Information", "id": .string(layoutId + "-section"),
            "layoutRows": .array(rows), "rows": .number(JSONNumber(Int64(rows.count))), "useHeading": true,
        ]
        return .json([
            "id": .string(layoutId), "layoutType": .string(layoutType), "mode": .string(mode),
            "objectApiName": .string(object.name), "recordTypeId": .string(recordTypeId), "saveOptions": [],
            "sections": [section],
        ])
    }
}
