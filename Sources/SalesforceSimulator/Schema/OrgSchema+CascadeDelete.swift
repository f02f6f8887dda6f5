extension OrgSchema {
    /// This schema with `type`'s reference `field` made master-detail (`cascadeDelete`):
    /// deleting the record it points at deletes the `type` record too.
    ///
    /// ```swift
    /// let schema = OrgSchema.standard.withCascadeDelete(type: "Contact", field: "AccountId")
    /// ```
    public func withCascadeDelete(type: String, field: String) -> OrgSchema {
        var schema = self
        guard var object = schema.object(named: type), let index = object.fields.firstIndex(where: { $0.name == field })
        else { return schema }
        object.fields[index].cascadeDelete = true
        schema.add(object)
        return schema
    }
}
