import LosslessJSON

/// A briefcase of the simulated org: rules selecting the records `connect/briefcase/priming-records`
/// serves to the user (every briefcase of the data file is assigned to the simulator's user).
///
/// In the data file, under `briefcases`:
///
/// ```json
/// {"name": "Field sales",
///  "rules": [{"objectType": "Account", "filter": "Industry = 'Retail'"}, {"objectType": "Contact"}]}
/// ```
public struct Briefcase: Sendable, Hashable {
    /// One rule: the live records of a type that match a SOQL condition (all when `nil`).
    public struct Rule: Sendable, Hashable {
        /// The sObject type.
        public var objectType: String
        /// A SOQL `where` condition, without the keyword.
        public var filter: String?

        /// Creates a rule.
        public init(objectType: String, filter: String? = nil) {
            self.objectType = objectType
            self.filter = filter
        }
    }

    /// The briefcase's name, which names its rules in `ruleErrors` (`<name>/<position>`).
    public var name: String
    /// The rules, in order.
    public var rules: [Rule]

    /// Creates a briefcase.
    public init(name: String, rules: [Rule]) {
        self.name = name
        self.rules = rules
    }

    /// Reads a briefcase of the data file.
    ///
    /// - Throws: ``SimulatorError/Code/invalidData`` for a briefcase without a name or a rule
    ///   without an `objectType`.
    init(json: JSONValue) throws {
        guard let name = json["name"]?.string, let rules = json["rules"]?.array else {
            throw SimulatorError(code: .invalidData, message: "Each briefcase needs a name and a rules array.")
        }
        self.init(
            name: name,
            rules: try rules.map { rule in
                guard let type = rule["objectType"]?.string else {
                    throw SimulatorError(code: .invalidData, message: "A rule of briefcase \(name) has no objectType.")
                }
                return Rule(objectType: type, filter: rule["filter"]?.string)
            })
    }

    /// The briefcase in the data file's form.
    var json: JSONValue {
        [
            "name": .string(name),
            "rules": .array(
                rules.map { rule in
                    var members: [String: JSONValue] = ["objectType": .string(rule.objectType)]
                    if let filter = rule.filter { members["filter"] = .string(filter) }
                    return .object(members)
                }),
        ]
    }
}
