import LosslessJSON
import Soups
import Synchronization

/// The records of a `sync.down.page` entry as the engine that appends it has them, and where the
/// fold of that entry answers how many it left alone.
struct FetchedRecords: Sendable {
    /// What parsing the payload gives.
    var records: [JSONValue]
    /// Where each record stands in the payload (see `SerializedPage`).
    var splices: [RecordSplice?]
    /// Filled by the fold that took these records.
    let receipt = PageFoldReceipt()
}

/// How many records of a page its fold left alone, told by the fold to the engine that appended
/// the page: the count is made once, by the fold, and nothing squares it afterwards.
final class PageFoldReceipt: Sendable {
    private let count = Mutex<Int?>(nil)

    /// The count, once the fold recorded it.
    var leftAlone: Int? {
        count.withLock { $0 }
    }

    /// Records the fold's count.
    func record(leftAlone: Int) {
        count.withLock { $0 = leftAlone }
    }
}
