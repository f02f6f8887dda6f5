import LosslessJSON

/// Reads the members of one JSON object and turns every missing or mistyped member into a
/// ``SyncError`` that names the object (`what`) and the key, so a bad config file or target
/// points at the exact field.
struct JSONFields {
    let members: [String: JSONValue]
    let what: String
    let code: SyncError.Code

    init(_ value: JSONValue, what: String, code: SyncError.Code) throws(SyncError) {
        guard let members = value.object else {
            throw SyncError(code, "\(what) must be a JSON object.")
        }
        self.members = members
        self.what = what
        self.code = code
    }

    func string(_ key: String) throws(SyncError) -> String {
        guard let value = try optionalString(key) else {
            throw SyncError(code, "\(what) has no \"\(key)\".")
        }
        return value
    }

    func optionalString(_ key: String) throws(SyncError) -> String? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let text = value.string else {
            throw SyncError(code, "\(what): \"\(key)\" must be a string.")
        }
        return text
    }

    func optionalInteger(_ key: String) throws(SyncError) -> Int64? {
        guard let value = members[key], !value.isNull else { return nil }
        // Mobile SDK writes these as integers; a JSON number with a zero fraction is accepted
        // because some JSON writers (JavaScript, Foundation) emit `2000.0` for integral doubles.
        if let integer = value.number?.int64Value { return integer }
        if let double = value.number?.doubleValue, double.rounded() == double, abs(double) < 9e15 {
            return Int64(double)
        }
        throw SyncError(code, "\(what): \"\(key)\" must be an integer.")
    }

    func optionalStringArray(_ key: String) throws(SyncError) -> [String]? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let elements = value.array else {
            throw SyncError(code, "\(what): \"\(key)\" must be an array of strings.")
        }
        var strings: [String] = []
        for element in elements {
            guard let text = element.string else {
                throw SyncError(code, "\(what): \"\(key)\" must be an array of strings.")
            }
            strings.append(text)
        }
        return strings
    }

    func stringArray(_ key: String) throws(SyncError) -> [String] {
        guard let value = try optionalStringArray(key) else {
            throw SyncError(code, "\(what) has no \"\(key)\".")
        }
        return value
    }

    func value(_ key: String) throws(SyncError) -> JSONValue {
        guard let value = members[key], !value.isNull else {
            throw SyncError(code, "\(what) has no \"\(key)\".")
        }
        return value
    }
}
