public import LosslessJSON
public import SalesforceAPI
import Soups

/// The parent/children sync-up target: one `POST /composite` per parent with its dirty
/// children (Mobile SDK's `ParentChildrenSyncUpTarget`), `allOrNone` false.
///
/// The parent's sub-request comes first and its children follow, except for a delete, where the
/// children go first and the parent last. A child of a parent created in the same request names
/// it by reference (`@{p<entryId>.id}`), so the server fills in the new id; other children carry
/// the parent's id. Deleting a master (`MASTER_DETAIL`) sends no children: the server deletes
/// them, and the parent's outcome deletes them locally. A tree larger than one composite request
/// (25 sub-requests) is sent in several, in the same order (`ParentChildrenSyncUpRunner`).
public struct ParentChildrenSyncUpTarget: Sendable {
    /// One record of a tree to send, in request order.
    public struct Step: Hashable, Sendable {
        /// The record, as read from its soup.
        public var record: JSONValue
        /// Whether it is a child (else the parent).
        public var isChild: Bool
        /// What its flags ask for.
        public var action: SyncUpAction

        /// The record's `_soupEntryId`.
        public var entryId: Int64 { record["_soupEntryId"]?.number?.int64Value ?? 0 }
        /// The composite reference of its sub-request.
        var reference: String { (isChild ? "c" : "p") + String(entryId) }
    }

    /// What one record's answer says, and whether it says the parent no longer exists.
    public struct Answer: Hashable, Sendable {
        /// The record's outcome.
        public var outcome: SyncUpOutcome
        /// A child was refused with `ENTITY_IS_DELETED` (not a 404): its parent is gone from the
        /// server, so under OVERWRITE the parent is created again.
        public var parentIsGone: Bool
    }

    /// The parents, children and relationship.
    public let relationship: ParentChildrenRelationship
    /// The fields sent on a parent's create; `nil` uses the options' field list.
    public let createFieldlist: [String]?
    /// The fields sent on a parent's update; `nil` uses the options' field list.
    public let updateFieldlist: [String]?
    /// The fields sent on a child's create.
    public let childrenCreateFieldlist: [String]?
    /// The fields sent on a child's update.
    public let childrenUpdateFieldlist: [String]?
    private let client: SalesforceClient

    /// Makes the target of a parent/children descriptor.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` for another kind of descriptor.
    public init(_ descriptor: SyncUpTargetDescriptor, client: SalesforceClient) throws(SyncError) {
        guard case .parentChildren(let relationship, let childrenCreate, let childrenUpdate) = descriptor.kind else {
            throw SyncError(.malformedTarget, "A parent/children sync up needs a parent/children descriptor.")
        }
        self.relationship = relationship
        createFieldlist = descriptor.createFieldlist
        updateFieldlist = descriptor.updateFieldlist
        childrenCreateFieldlist = childrenCreate
        childrenUpdateFieldlist = childrenUpdate
        self.client = client
    }

    // MARK: - Requests

    /// The records of one tree to send, in request order: the parent, then its dirty children;
    /// for a parent delete the children first and the parent last, and no children at all
    /// when a master is deleted (the server deletes them with it).
    public func steps(parent: JSONValue, children: [JSONValue]) -> [Step] {
        let parentAction = SyncUpAction(record: parent)
        var childSteps: [Step] = []
        if !(parentAction == .delete && relationship.relationshipType == .masterDetail) {
            for child in children {
                let action = SyncUpAction(record: child)
                if action != .none { childSteps.append(Step(record: child, isChild: true, action: action)) }
            }
        }
        let parentStep = Step(record: parent, isChild: false, action: parentAction)
        return parentAction == .delete ? childSteps + [parentStep] : [parentStep] + childSteps
    }

    /// The sub-requests of `steps`, and the outcomes of the steps that need none.
    ///
    /// - Parameters:
    ///   - parent: the tree's parent as it is now.
    ///   - fieldlist: the options' field list, for parents without their own lists.
    /// - Returns: the sub-requests in order, the step each reference names, and the outcome of
    ///   every step sent nowhere (created and deleted locally, not dirty, or a child whose
    ///   parent has no server id yet and is not created in this request).
    /// - Throws: ``SyncError/Code/malformedOptions`` "No fields specified" when a create or
    ///   update has no field list.
    func subrequests(_ steps: [Step], parent: JSONValue, fieldlist: [String]?) throws(SyncError) -> (
        requests: [CompositeSubrequest], steps: [String: Step], unsent: [Int64: SyncUpOutcome]
    ) {
        let parentAction = SyncUpAction(record: parent)
        let createsParentHere = steps.contains { !$0.isChild && $0.action == .create }
        let parentReference: JSONValue? =
            if parentAction == .delete {
                nil
            } else if createsParentHere {
                .string("@{p\(parent["_soupEntryId"]?.number?.int64Value ?? 0).id}")
            } else if let id = parent[relationship.parent.idFieldName]?.string, !id.hasPrefix("local_") {
                .string(id)
            } else {
                nil
            }
        var requests: [CompositeSubrequest] = []
        var named: [String: Step] = [:]
        var unsent: [Int64: SyncUpOutcome] = [:]
        for step in steps {
            guard SyncUpAction.requiresServerCall(step.record) else {
                unsent[step.entryId] = step.action == .delete ? .deleted : .skipped
                continue
            }
            if step.isChild, parentAction != .delete, parentReference == nil {
                unsent[step.entryId] = .skipped
                continue
            }
            guard let request = try subrequest(step, parentReference: parentReference, fieldlist: fieldlist) else {
                unsent[step.entryId] = SyncUpFields.missingId(idFieldName(step))
                continue
            }
            requests.append(request)
            named[step.reference] = step
        }
        return (requests, named, unsent)
    }

    private func subrequest(_ step: Step, parentReference: JSONValue?, fieldlist: [String]?) throws(SyncError)
        -> CompositeSubrequest?
    {
        let type = step.isChild ? relationship.children.sobjectType : relationship.parent.sobjectType
        let sobjects = "\(client.dataPath)/sobjects/\(type)"
        let idField = idFieldName(step)
        switch step.action {
        case .create, .update:
            var fields = try SyncUpFields.fields(
                step.record, names: fieldNames(step, fieldlist: fieldlist), idFieldName: idField,
                modificationDateFieldName: step.isChild
                    ? relationship.children.modificationDateFieldName : relationship.parent.modificationDateFieldName)
            if step.isChild, let parentReference { fields[relationship.children.parentIdFieldName] = parentReference }
            if step.action == .update {
                guard let id = step.record[idField]?.string else { return nil }
                return CompositeSubrequest(
                    method: "PATCH", url: "\(sobjects)/\(SyncUpFields.pathSegment(id))", body: .object(fields),
                    referenceID: step.reference)
            }
            let externalIdField =
                step.isChild ? relationship.children.externalIdFieldName : relationship.parent.externalIdFieldName
            if let (field, value) = SyncUpFields.externalId(of: step.record, field: externalIdField) {
                fields[field] = nil
                let url = "\(sobjects)/\(SyncUpFields.pathSegment(field))/\(SyncUpFields.pathSegment(value))"
                return CompositeSubrequest(
                    method: "PATCH", url: url, body: .object(fields), referenceID: step.reference)
            }
            return CompositeSubrequest(
                method: "POST", url: sobjects, body: .object(fields), referenceID: step.reference)
        case .delete:
            guard let id = step.record[idField]?.string else { return nil }
            return CompositeSubrequest(
                method: "DELETE", url: "\(sobjects)/\(SyncUpFields.pathSegment(id))", referenceID: step.reference)
        case .none:
            return nil
        }
    }

    private func fieldNames(_ step: Step, fieldlist: [String]?) -> [String]? {
        switch (step.isChild, step.action == .create) {
        case (true, true): childrenCreateFieldlist
        case (true, false): childrenUpdateFieldlist
        case (false, true): createFieldlist ?? fieldlist
        case (false, false): updateFieldlist ?? fieldlist
        }
    }

    func idFieldName(_ step: Step) -> String {
        step.isChild ? relationship.children.idFieldName : relationship.parent.idFieldName
    }

    /// Sends the sub-requests as one composite request.
    ///
    /// - Throws: `SalesforceError` when the request as a whole fails (the sync ends FAILED).
    func send(_ requests: [CompositeSubrequest]) async throws -> [CompositeSubresponse] {
        try await client.composite(requests, allOrNone: false)
    }

    // MARK: - Answers

    /// What the server's answer to one step means: 2xx is done (a create's id is the body's
    /// `id`); 404 means the record does not exist there (a delete is then done, an update is
    /// ``SyncUpOutcome/notFound``); any other status refuses the record with the first error of
    /// its body.
    ///
    /// - Throws: `SalesforceError` `.invalidResponse` for a create answered without an id.
    func answer(_ response: CompositeSubresponse, for step: Step) throws -> Answer {
        guard (200..<300).contains(response.httpStatusCode) else {
            let error = response.body.array?.first ?? response.body
            let parentIsGone =
                step.isChild && response.httpStatusCode != 404 && error["errorCode"]?.string == "ENTITY_IS_DELETED"
            let outcome = SyncUpFields.outcome(
                ofRefusal: error, isNotFound: response.httpStatusCode == 404, action: step.action)
            return Answer(outcome: outcome, parentIsGone: parentIsGone)
        }
        switch step.action {
        case .create:
            guard let id = response.body["id"]?.string else {
                throw SalesforceError(code: .invalidResponse, message: "A composite create answered without an id.")
            }
            return Answer(outcome: .created(serverId: id), parentIsGone: false)
        case .update: return Answer(outcome: .updated, parentIsGone: false)
        case .delete: return Answer(outcome: .deleted, parentIsGone: false)
        case .none: return Answer(outcome: .skipped, parentIsGone: false)
        }
    }

    // MARK: - LEAVE_IF_CHANGED

    /// The server record of the parent whose external id is `parent`'s, when the server has
    /// one: the record a clean parent the server lost is taken to be now (decision 0323).
    /// One query, `select <id>, <date>, <external id>, <fields> from <Parent> where
    /// <externalIdField> = '<value>'`, reads the fields a parent is created and updated with
    /// (`fieldlist` where the target names none), so the adopted parent can hold the server's
    /// values instead of its own stale ones.
    ///
    /// - Returns: the record as the query answers it (with `attributes`); `nil` when the
    ///   relationship names no parent external id field, `parent` has no value in it, or no
    ///   server record has that value.
    /// - Throws: what the query throws when its result is unknown (no answer, 5xx).
    public func serverRecordOfParent(withTheExternalIdOf parent: JSONValue, fieldlist: [String]?) async throws
        -> [String: JSONValue]?
    {
        let info = relationship.parent
        guard let externalIdField = info.externalIdFieldName,
            let (_, value) = SyncUpFields.externalId(of: parent, field: externalIdField)
        else { return nil }
        var fields: [String] = []
        // SOQL refuses a field selected twice, in any case.
        var selected: Set<String> = []
        for field in [info.idFieldName, info.modificationDateFieldName, externalIdField]
            + (createFieldlist ?? fieldlist ?? []) + (updateFieldlist ?? fieldlist ?? [])
        where selected.insert(field.lowercased()).inserted {
            fields.append(field)
        }
        let query =
            "select \(fields.joined(separator: ", ")) from \(info.sobjectType) "
            + "where \(externalIdField) = \(SOQLQuery.quotedList([value]))"
        return try await client.query(query).records.first?.object
    }

    /// The server id of the parent (or child) record holding `externalId` in the relationship's
    /// external id field for parents (or children), when the server has one:
    /// `select <id> from <type> where <externalIdField> = '<value>'`.
    ///
    /// - Returns: `nil` when that side of the relationship names no external id field, or no
    ///   server record has the value.
    /// - Throws: what the query throws when its result is unknown (no answer, 5xx).
    public func serverId(ofExternalId externalId: String, isChild: Bool) async throws -> String? {
        let (parent, children) = (relationship.parent, relationship.children)
        let (type, idField) =
            isChild ? (children.sobjectType, children.idFieldName) : (parent.sobjectType, parent.idFieldName)
        guard let externalIdField = isChild ? children.externalIdFieldName : parent.externalIdFieldName else {
            return nil
        }
        let query =
            "select \(idField) from \(type) where \(externalIdField) = \(SOQLQuery.quotedList([externalId]))"
        return try await client.query(query).records.first?[idField]?.string
    }

    /// Whether the local tree may overwrite the server's, per Mobile SDK: a locally created
    /// parent always may; otherwise one query reads the server's parent and children
    /// (`select <id>, <date>, (select <child id>, <child date> from <Plural>) from <Parent>
    /// where <id> = '<parent id>'`) and every local record of the tree must be newer than its
    /// server copy (`SyncUpFields.isNewer(local:dateField:server:)`), a missing copy counting
    /// as deleted and a child counting as deleted when its master is. A server refusal of the
    /// query leaves the tree unsent.
    ///
    /// - Throws: what the query throws when its result is unknown (no answer, 5xx).
    public func isNewerThanServer(parent: JSONValue, children: [JSONValue]) async throws -> Bool {
        let parentInfo = relationship.parent
        let childInfo = relationship.children
        guard !SyncUpAction.isLocallyCreated(parent) else { return true }
        guard let id = parent[parentInfo.idFieldName]?.string else { return true }
        let subquery =
            "select \(childInfo.idFieldName), \(childInfo.modificationDateFieldName) from \(childInfo.sobjectTypePlural)"
        let query =
            "select \(parentInfo.idFieldName), \(parentInfo.modificationDateFieldName), (\(subquery)) "
            + "from \(parentInfo.sobjectType) where \(parentInfo.idFieldName) = \(SOQLQuery.quotedList([id]))"
        let server: JSONValue?
        do {
            server = try await client.query(query).records.first
        } catch let error as SalesforceError where SyncUpFields.refusal(error) != nil {
            return false
        }
        guard Self.isNewer(parent, parentInfo.modificationDateFieldName, server, parentInfo.modificationDateFieldName)
        else { return false }
        let serverChildren = server.map {
            SyncDownPage.nestedChildren(of: $0, relationshipName: childInfo.sobjectTypePlural)
        }
        let masterDeleted =
            relationship.relationshipType == .masterDetail && SyncUpAction(record: parent) == .delete
        for child in children where !SyncUpAction.isLocallyCreated(child) {
            var local = child
            if masterDeleted, case .object(var fields) = child {
                fields[LocalFlags.locallyDeleted] = true
                local = .object(fields)
            }
            let id = child[childInfo.idFieldName]?.string
            let copy = serverChildren?.first { $0[childInfo.idFieldName]?.string == id }
            guard Self.isNewer(local, childInfo.modificationDateFieldName, copy, childInfo.modificationDateFieldName)
            else { return false }
        }
        return true
    }

    private static func isNewer(_ local: JSONValue, _ localField: String, _ server: JSONValue?, _ serverField: String)
        -> Bool
    {
        let copy: SyncUpFields.ServerCopy =
            if let server {
                server[serverField]?.string.map { .modified($0) } ?? .unknown
            } else {
                .deleted
            }
        return SyncUpFields.isNewer(local: local, dateField: localField, server: copy)
    }
}
