/// The sObject types of a simulated org.
public struct OrgSchema: Sendable, Hashable {
    /// The types, in a stable order.
    public private(set) var objects: [ObjectSchema]

    /// Creates a schema.
    public init(objects: [ObjectSchema]) {
        self.objects = objects
    }

    /// Finds a type by name, ignoring case.
    public func object(named name: String) -> ObjectSchema? {
        let lowered = name.lowercased()
        return objects.first { $0.name.lowercased() == lowered }
    }

    /// Finds the type whose ids start with a key prefix.
    func object(keyPrefix: String) -> ObjectSchema? {
        objects.first { $0.keyPrefix == keyPrefix }
    }

    /// Adds a type, or replaces the one with the same name.
    public mutating func add(_ object: ObjectSchema) {
        if let index = objects.firstIndex(where: { $0.name.lowercased() == object.name.lowercased() }) {
            objects[index] = object
        } else {
            objects.append(object)
        }
    }

    /// A child relationship of `parent` (`Contacts` on Account): the child type and its lookup.
    func childRelationship(_ name: String, of parent: String) -> (child: ObjectSchema, field: FieldSchema)? {
        let lowered = name.lowercased()
        for object in objects {
            for field in object.fields
            where field.referenceTo?.lowercased() == parent.lowercased()
                && field.childRelationshipName?.lowercased() == lowered
            {
                return (object, field)
            }
        }
        return nil
    }

    /// The built-in types: User, Account and Contact with the fields Mobile Sync apps commonly use.
    public static let standard = OrgSchema(objects: [
        ObjectSchema(
            name: "User", keyPrefix: "005",
            fields: [
                FieldSchema(name: "Name", type: .string, label: "Full Name", length: 121, isRequired: true),
                FieldSchema(name: "Username", type: .string, label: "Username", length: 80),
                FieldSchema(name: "Email", type: .email, label: "Email", length: 128),
                FieldSchema(name: "IsActive", type: .boolean, label: "Active"),
            ]),
        ObjectSchema(
            name: "Account", keyPrefix: "001",
            fields: [
                FieldSchema(name: "Name", type: .string, label: "Account Name", length: 255, isRequired: true),
                FieldSchema(name: "AccountNumber", type: .string, label: "Account Number", length: 40),
                FieldSchema(name: "Type", type: .picklist, label: "Account Type", length: 255),
                FieldSchema(name: "Industry", type: .picklist, label: "Industry", length: 255),
                FieldSchema(name: "Rating", type: .picklist, label: "Account Rating", length: 255),
                FieldSchema(name: "Phone", type: .phone, label: "Account Phone", length: 40),
                FieldSchema(name: "Website", type: .url, label: "Website", length: 255),
                FieldSchema(name: "BillingCity", type: .string, label: "Billing City", length: 40),
                FieldSchema(name: "BillingCountry", type: .string, label: "Billing Country", length: 80),
                FieldSchema(name: "AnnualRevenue", type: .currency, label: "Annual Revenue"),
                FieldSchema(name: "NumberOfEmployees", type: .int, label: "Employees"),
                FieldSchema(name: "Description", type: .textarea, label: "Account Description", length: 32000),
                FieldSchema(name: "Tags__c", type: .multipicklist, label: "Tags", length: 4099),
                FieldSchema(
                    name: "ExternalId__c", type: .string, label: "External ID", length: 255, isExternalID: true),
                FieldSchema(
                    name: "OwnerId", type: .reference, label: "Owner ID", referenceTo: "User",
                    relationshipName: "Owner"),
            ]),
        ObjectSchema(
            name: "Contact", keyPrefix: "003",
            fields: [
                FieldSchema(name: "FirstName", type: .string, label: "First Name", length: 40),
                FieldSchema(name: "LastName", type: .string, label: "Last Name", length: 80, isRequired: true),
                FieldSchema(name: "Name", type: .string, label: "Full Name", length: 121, isSystem: true),
                FieldSchema(name: "Email", type: .email, label: "Email", length: 80),
                FieldSchema(name: "Phone", type: .phone, label: "Business Phone", length: 40),
                FieldSchema(name: "Title", type: .string, label: "Title", length: 128),
                FieldSchema(name: "Department", type: .string, label: "Department", length: 80),
                FieldSchema(name: "Birthdate", type: .date, label: "Birthdate"),
                FieldSchema(name: "HasOptedOutOfEmail", type: .boolean, label: "Email Opt Out"),
                FieldSchema(
                    name: "ExternalId__c", type: .string, label: "External ID", length: 255, isExternalID: true),
                FieldSchema(
                    name: "AccountId", type: .reference, label: "Account ID", referenceTo: "Account",
                    relationshipName: "Account", childRelationshipName: "Contacts"),
                FieldSchema(
                    name: "OwnerId", type: .reference, label: "Owner ID", referenceTo: "User",
                    relationshipName: "Owner"),
            ]),
    ])
}
