/// One page of results: skips `offset` results, then keeps `size`.
struct Page {
    var offset: Int
    let size: Int
    var ids: [Int64] = []

    init(offset: Int, size: Int) {
        self.offset = offset
        self.size = size
        ids.reserveCapacity(min(size, 1024))
    }

    /// Offers the next result; returns `false` once the page is full.
    mutating func offer(_ entryId: Int64) -> Bool {
        if offset > 0 {
            offset -= 1
            return true
        }
        ids.append(entryId)
        return ids.count < size
    }
}
