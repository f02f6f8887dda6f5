import LosslessJSON

extension SimulatorState {
    /// The `objectDescribe` of basic info and the global describe.
    func objectDescribe(_ object: ObjectSchema, version: String) -> JSONValue {
        let base = "/services/data/\(version)/sobjects/\(object.name)"
        return [
            "name": .string(object.name), "label": .string(object.name), "keyPrefix": .string(object.keyPrefix),
            "custom": .bool(object.name.hasSuffix("__c")), "createable": true, "updateable": true, "deletable": true,
            "queryable": true, "searchable": true, "retrieveable": true, "mruEnabled": true,
            "urls": [
                "sobject": .string(base), "describe": .string(base + "/describe"),
                "rowTemplate": .string(base + "/{ID}"),
            ],
        ]
    }

    /// `GET /sobjects/<Type>`: basic info plus the recent items (`Id` and `Name` when it has one).
    func basicInfo(_ object: ObjectSchema, version: String) -> JSONValue {
        let hasName = object.field(named: "Name") != nil
        let items: [JSONValue] = (store.recentItems[object.name] ?? []).compactMap { id in
            guard let record = store.liveRecord(id)?.fields else { return nil }
            return render(record, object: object, fields: hasName ? ["Id", "Name"] : ["Id"], version: version)
        }
        return ["objectDescribe": objectDescribe(object, version: version), "recentItems": .array(items)]
    }

    /// `GET /sobjects/<Type>/describe`: the keys Mobile Sync's metadata model reads.
    func describe(_ object: ObjectSchema, version: String) -> JSONValue {
        guard case .object(var describe) = objectDescribe(object, version: version) else { return .null }
        for key in [
            "activateable", "compactLayoutable", "customSetting", "deprecatedAndHidden", "feedEnabled", "hasSubtypes",
            "isSubtype", "mergeable", "replicateable", "searchLayoutable", "triggerable", "undeletable", "layoutable",
        ] {
            describe[key] = .bool(key == "layoutable" || key == "replicateable")
        }
        describe["labelPlural"] = .string(object.name + "s")
        describe["networkScopeFieldName"] = .null
        describe["fields"] = .array(object.fields.map(Self.fieldDescribe))
        var children: [JSONValue] = []
        for child in store.schema.objects {
            for field in child.fields where field.referenceTo == object.name && field.childRelationshipName != nil {
                children.append([
                    "childSObject": .string(child.name), "field": .string(field.name),
                    "relationshipName": .string(field.childRelationshipName ?? ""),
                    "cascadeDelete": .bool(field.cascadeDelete),
                ])
            }
        }
        describe["childRelationships"] = .array(children)
        return .object(describe)
    }

    static func fieldDescribe(_ field: FieldSchema) -> JSONValue {
        [
            "name": .string(field.name), "label": .string(field.label), "type": .string(field.type.rawValue),
            "length": .number(JSONNumber(Int64(field.length ?? 0))), "nillable": .bool(!field.isRequired),
            "createable": .bool(!field.isSystem), "updateable": .bool(!field.isSystem),
            "externalId": .bool(field.isExternalID),
            "referenceTo": .array(field.referenceTo.map { [.string($0)] } ?? []),
            "relationshipName": field.relationshipName.map { .string($0) } ?? .null,
            "cascadeDelete": .bool(field.cascadeDelete),
        ]
    }
}
