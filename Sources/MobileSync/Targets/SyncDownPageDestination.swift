/// Where the records of a fetched page go, for targets that write somewhere other than the
/// sync's soup under the target's id field: one soup per object type (briefcase), or parents
/// in one soup and their nested children in another (parent/children).
///
/// A target reports it through ``SyncDownTarget/pageDestination`` after each fetch; the engine
/// writes it into the page's journal entry, so the soup fold needs nothing else.
public struct SyncDownPageDestination: Hashable, Sendable {
    /// Where the children nested in each fetched parent go.
    public struct Children: Hashable, Sendable {
        /// The soup children are stored in.
        public var soupName: String
        /// The key of a parent's children in the fetched record (the relationship name, such as
        /// `Contacts`); its value is a query result (`{"records": [...]}`) or null.
        public var relationshipName: String
        /// The children's id field.
        public var idFieldName: String
        /// The children's modification date field, read for the watermark.
        public var modificationDateFieldName: String
        /// The child field that receives its parent's id.
        public var parentIdFieldName: String

        /// Creates a children destination.
        public init(
            soupName: String, relationshipName: String, idFieldName: String, modificationDateFieldName: String,
            parentIdFieldName: String
        ) {
            self.soupName = soupName
            self.relationshipName = relationshipName
            self.idFieldName = idFieldName
            self.modificationDateFieldName = modificationDateFieldName
            self.parentIdFieldName = parentIdFieldName
        }
    }

    /// The soup the page's (parent) records go to.
    public var soupName: String
    /// The records' id field.
    public var idFieldName: String
    /// The records' modification date field, read for the watermark.
    public var modificationDateFieldName: String
    /// Where nested children go, for a parent/children page.
    public var children: Children?

    /// Creates a destination.
    public init(soupName: String, idFieldName: String, modificationDateFieldName: String, children: Children? = nil) {
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.children = children
    }
}
