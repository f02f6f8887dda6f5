// The word lists the org-shaped records draw from: invented for the benchmark, large enough
// that records differ the way an org's do, small enough to read.

extension OrgValues {
    static let firstNames = [
        "James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth",
        "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
        "Daniel", "Lisa", "Matthew", "Nancy", "Anthony", "Betty", "Mark", "Sandra", "Steven", "Ashley",
        "Andrew", "Emily", "Joshua", "Michelle", "Kevin", "Amanda", "Brian", "Melissa", "Priya", "Wei",
        "Aiko", "Mateo", "Sofia", "Lucas", "Amara", "Omar", "Fatima", "Hiroshi", "Ingrid", "Rafael",
    ]

    static let lastNames = [
        "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
        "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
        "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
        "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
        "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
        "Okafor", "Tanaka", "Kowalski", "Lindqvist", "Patel", "Chen", "Haddad", "Novak", "Moreau", "Hartley",
    ]

    static let companyWords = [
        "Blue", "Summit", "Pioneer", "Granite", "Northern", "Pacific", "Atlas", "Evergreen", "Silver", "Harbor",
        "Keystone", "Crescent", "Redwood", "Sterling", "Apex", "Beacon", "Cedar", "Horizon", "Liberty", "Meridian",
    ]

    static let companyNouns = [
        "Logistics", "Systems", "Foods", "Energy", "Health", "Capital", "Manufacturing", "Software", "Partners",
        "Retail", "Media", "Motors", "Pharma", "Analytics", "Construction", "Telecom", "Insurance", "Labs",
    ]

    static let companySuffixes = ["Inc.", "LLC", "Corp.", "Group", "Holdings", "Ltd.", "Co."]

    static let streetNames = [
        "Main", "Oak", "Pine", "Maple", "Cedar", "Elm", "Washington", "Lake", "Hill", "Park", "Market", "Mission",
        "Broadway", "Sunset", "Highland", "Jefferson", "Lincoln", "Madison", "Franklin", "Riverside", "Spring",
    ]

    static let streetTypes = ["Street", "Avenue", "Boulevard", "Road", "Drive", "Lane", "Way", "Parkway"]

    static let cities: [(city: String, state: String, postalPrefix: Int)] = [
        ("San Francisco", "CA", 941), ("Los Angeles", "CA", 900), ("San Diego", "CA", 921), ("Seattle", "WA", 981),
        ("Portland", "OR", 972), ("Denver", "CO", 802), ("Austin", "TX", 787), ("Dallas", "TX", 752),
        ("Houston", "TX", 770), ("Chicago", "IL", 606), ("Minneapolis", "MN", 554), ("Detroit", "MI", 482),
        ("Atlanta", "GA", 303), ("Miami", "FL", 331), ("Orlando", "FL", 328), ("Charlotte", "NC", 282),
        ("Boston", "MA", 21), ("New York", "NY", 100), ("Philadelphia", "PA", 191), ("Pittsburgh", "PA", 152),
        ("Columbus", "OH", 432), ("Nashville", "TN", 372), ("Phoenix", "AZ", 850), ("Salt Lake City", "UT", 841),
        ("Kansas City", "MO", 641), ("Raleigh", "NC", 276), ("Baltimore", "MD", 212), ("Newark", "NJ", 71),
    ]

    static let industries = [
        "Agriculture", "Apparel", "Banking", "Biotechnology", "Chemicals", "Communications", "Construction",
        "Consulting", "Education", "Electronics", "Energy", "Engineering", "Entertainment", "Environmental",
        "Finance", "Food & Beverage", "Government", "Healthcare", "Hospitality", "Insurance", "Machinery",
        "Manufacturing", "Media", "Not For Profit", "Recreation", "Retail", "Shipping", "Technology",
        "Telecommunications", "Transportation", "Utilities", "Other",
    ]

    static let titles = [
        "CEO", "CFO", "COO", "VP, Sales", "VP, Operations", "Director of IT", "IT Manager", "Purchasing Manager",
        "Account Executive", "Office Manager", "Head of Procurement", "Senior Buyer", "Controller",
        "Marketing Director", "Operations Analyst", "Regional Sales Manager", "Facilities Manager", "CTO",
    ]

    static let departments = [
        "Sales", "Finance", "Operations", "IT", "Procurement", "Marketing", "Engineering", "Legal", "Support",
    ]

    static let leadSources = [
        "Web", "Phone Inquiry", "Partner Referral", "Purchased List", "Trade Show", "Word of mouth",
        "Employee Referral",
        "Advertisement", "Other",
    ]

    static let products = [
        "GenWatt Diesel 200kW", "GenWatt Diesel 1000kW", "GenWatt Propane 500kW", "SLA: Bronze", "SLA: Silver",
        "SLA: Gold", "SLA: Platinum", "Installation: Industrial", "Installation: Portable", "Annual Maintenance",
        "Cloud Subscription", "Onboarding Services", "Field Service Add-on", "Analytics Seats",
    ]

    static let stages = [
        "Prospecting", "Qualification", "Needs Analysis", "Value Proposition", "Id. Decision Makers",
        "Perception Analysis", "Proposal/Price Quote", "Negotiation/Review", "Closed Won", "Closed Lost",
    ]

    static let caseSubjects = [
        "Cannot log in to the portal", "Invoice shows the wrong amount", "Generator fails to start",
        "Request for a replacement part", "Shipment arrived damaged", "Question about the renewal",
        "Performance is slow since the update", "Need help configuring the integration",
        "Billing address must be changed", "Warranty claim for unit", "Error when exporting the report",
        "Training request for new staff", "Sensor reports incorrect readings", "Password reset link expired",
    ]

    /// The words of long texts: an org's descriptions, notes and case comments.
    static let words = [
        "account", "customer", "meeting", "follow", "up", "with", "the", "team", "about", "renewal", "contract",
        "pricing", "discount", "quote", "approved", "pending", "review", "legal", "procurement", "budget",
        "quarter", "next", "week", "call", "scheduled", "demo", "requested", "integration", "requirements",
        "implementation", "timeline", "rollout", "phase", "pilot", "users", "licenses", "expansion", "region",
        "site", "installation", "maintenance", "warranty", "support", "ticket", "escalated", "resolved",
        "issue", "reported", "by", "their", "operations", "manager", "decision", "maker", "champion", "competitor",
        "evaluation", "shortlist", "proposal", "sent", "signed", "order", "shipment", "delivered", "invoice",
        "payment", "terms", "net", "thirty", "days", "credit", "hold", "risk", "churn", "upsell", "cross-sell",
        "opportunity", "forecast", "committed", "best", "case", "pipeline", "stage", "moved", "to", "closed",
        "won", "lost", "because", "of", "price", "timing", "features", "reporting", "dashboard", "analytics",
        "security", "compliance", "audit", "data", "migration", "from", "legacy", "system", "cloud", "mobile",
        "app", "field", "service", "technicians", "on", "visit", "and", "a", "for", "in", "is", "was", "will",
        "be", "has", "have", "not", "yet", "still", "waiting", "feedback", "asked", "new", "contact", "replaced",
        "previous", "owner", "left", "company", "headquarters", "relocated", "board", "approved", "capital",
        "expenditure", "fiscal", "year", "starts", "january", "july", "october", "april", "volume", "tier",
        "agreement", "renewed", "three", "year", "term", "auto", "renew", "clause", "removed", "notice", "period",
        "sixty", "training", "sessions", "onboarding", "completed", "satisfaction", "survey", "score", "high",
        "low", "medium", "priority", "urgent", "outage", "downtime", "hours", "engineer", "assigned", "root",
        "cause", "firmware", "update", "patch", "workaround", "provided", "confirmed", "fixed", "generator",
        "units", "kilowatt", "diesel", "propane", "backup", "power", "hospital", "warehouse", "plant", "office",
    ]
}
