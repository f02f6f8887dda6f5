import LosslessJSON

extension SyncState {
    /// The records a run could not apply or send: how many, and the first few with their errors.
    ///
    /// Mobile SDK only marks such records (`__last_error__`); the summary lets a caller see
    /// them from the state alone. It is persisted as `failures` and left out when empty.
    public struct FailureSummary: Hashable, Sendable {
        /// How many records failed in the last run.
        public var count: Int
        /// The first failures, at most ``SyncState/FailureSummary/sampleCountMax``.
        public private(set) var sample: [RecordFailure]

        /// The most failures kept by id: enough to diagnose, small enough for a state entry.
        public static let sampleCountMax = 20

        /// One record's failure.
        public struct RecordFailure: Hashable, Sendable {
            /// The record's id (server or local).
            public var recordId: String
            /// The error, as the server or the engine stated it.
            public var message: String

            /// Creates a failure.
            public init(recordId: String, message: String) {
                self.recordId = recordId
                self.message = message
            }
        }

        /// Creates an empty summary.
        public init() {
            count = 0
            sample = []
        }

        /// Counts a failure and keeps it if the sample is not full.
        public mutating func record(_ failure: RecordFailure) {
            count += 1
            if sample.count < Self.sampleCountMax { sample.append(failure) }
        }

        var json: JSONValue {
            let items: [JSONValue] = sample.map { ["id": .string($0.recordId), "message": .string($0.message)] }
            return ["count": .number(JSONNumber(Int64(count))), "sample": .array(items)]
        }

        init(json: JSONValue) throws(SyncError) {
            let fields = try JSONFields(json, what: "Sync state failures", code: .malformedState)
            self.init()
            count = Int(clamping: try fields.optionalInteger("count") ?? 0)
            for item in try fields.value("sample").array ?? [] {
                let itemFields = try JSONFields(item, what: "Sync state failure", code: .malformedState)
                let failure = RecordFailure(
                    recordId: try itemFields.string("id"), message: try itemFields.string("message"))
                if sample.count < Self.sampleCountMax { sample.append(failure) }
            }
        }
    }
}
