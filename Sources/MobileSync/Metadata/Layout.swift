public import LosslessJSON

/// A record layout as the UI API returns it (`GET ui-api/layout/<type>`): Mobile SDK's `Layout`
/// model, read from the JSON that ``LayoutSyncManager`` caches.
///
/// Every member the API may leave out is optional or empty, so any layout reads; ``rawData``
/// keeps the whole answer for what the model does not name.
public struct Layout: Hashable, Sendable {
    /// A section of the layout: a heading and rows of items.
    public struct Section: Hashable, Sendable {
        /// The section's id.
        public var id: String?
        /// The heading shown above it.
        public var heading: String?
        /// Whether the heading is shown.
        public var useHeading: Bool
        /// Whether the section can be collapsed.
        public var isCollapsible: Bool
        /// How many columns the rows fill.
        public var columns: Int
        /// The rows, top to bottom.
        public var rows: [Row]
    }

    /// One row of a section.
    public struct Row: Hashable, Sendable {
        /// The items of the row, left to right.
        public var items: [Item]
    }

    /// One item of a row: usually one field, several for a compound field (a name, an address).
    public struct Item: Hashable, Sendable {
        /// The item's label.
        public var label: String?
        /// Whether a value is required.
        public var isRequired: Bool
        /// Whether it can be edited on a new record.
        public var isEditableForNew: Bool
        /// Whether it can be edited on an existing record.
        public var isEditableForUpdate: Bool
        /// Whether the list can be sorted by it.
        public var isSortable: Bool
        /// For a lookup, the field holding the related record's id.
        public var lookupIdApiName: String?
        /// The fields (and other components) the item shows, as the API returns them.
        public var components: [JSONValue]
        /// The API names of the item's field components.
        public var fieldNames: [String] {
            components.compactMap { $0["componentType"]?.string == "Field" ? $0["apiName"]?.string : nil }
        }
    }

    /// The layout's id (`00h…`).
    public var id: String?
    /// `Full` or `Compact`.
    public var layoutType: String?
    /// `Create`, `Edit` or `View`.
    public var mode: String?
    /// The object the layout is for.
    public var objectApiName: String?
    /// The record type it applies to.
    public var recordTypeId: String?
    /// The sections, top to bottom.
    public var sections: [Section]
    /// The whole answer, cache bookkeeping (`Id`, `_soup…`, sync flags) included.
    public var rawData: JSONValue

    /// Reads a layout from the UI API's JSON (or the cached record); unknown members are kept in
    /// ``rawData`` only.
    public init(json: JSONValue) {
        rawData = json
        id = json["id"]?.string
        layoutType = json["layoutType"]?.string
        mode = json["mode"]?.string
        objectApiName = json["objectApiName"]?.string
        recordTypeId = json["recordTypeId"]?.string
        sections = (json["sections"]?.array ?? []).map { section in
            Section(
                id: section["id"]?.string, heading: section["heading"]?.string,
                useHeading: section["useHeading"]?.bool ?? false, isCollapsible: section["collapsible"]?.bool ?? false,
                columns: Int(section["columns"]?.number?.int64Value ?? 1),
                rows: (section["layoutRows"]?.array ?? []).map { row in
                    Row(items: (row["layoutItems"]?.array ?? []).map(Self.item))
                })
        }
    }

    private static func item(_ json: JSONValue) -> Item {
        Item(
            label: json["label"]?.string, isRequired: json["required"]?.bool ?? false,
            isEditableForNew: json["editableForNew"]?.bool ?? false,
            isEditableForUpdate: json["editableForUpdate"]?.bool ?? false, isSortable: json["sortable"]?.bool ?? false,
            lookupIdApiName: json["lookupIdApiName"]?.string, components: json["layoutComponents"]?.array ?? [])
    }
}
