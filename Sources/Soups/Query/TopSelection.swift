/// The `count` first elements of a stream in a given order, kept in O(`count`) memory.
///
/// A query that must order results it reads in another order (records by `_soupEntryId`
/// read from a range walk, or sort keys read from a scan) only ever shows the first
/// `offset + pageSize` of them, so it keeps those instead of sorting every candidate.
/// Elements are buffered and, when the buffer reaches twice `count`, sorted and cut back to
/// `count`: O(n log count) comparisons in all.
struct TopSelection<Element> {
    let count: Int
    let areInIncreasingOrder: (Element, Element) -> Bool
    private let trimThreshold: Int
    private var buffer: [Element] = []

    init(count: Int, by areInIncreasingOrder: @escaping (Element, Element) -> Bool) {
        precondition(count > 0, "a selection keeps at least one element")
        self.count = count
        self.areInIncreasingOrder = areInIncreasingOrder
        // A floor keeps tiny pages from re-sorting after every few elements.
        trimThreshold = count > Int.max / 2 ? Int.max : max(2 * count, 64)
    }

    /// Offers an element; always returns `true` so it can serve as a walk's body.
    @discardableResult
    mutating func insert(_ element: Element) -> Bool {
        buffer.append(element)
        if buffer.count >= trimThreshold { trim() }
        return true
    }

    /// The kept elements, in order.
    func sorted() -> [Element] {
        var copy = self
        copy.trim()
        return copy.buffer
    }

    private mutating func trim() {
        buffer.sort(by: areInIncreasingOrder)
        if buffer.count > count { buffer.removeLast(buffer.count - count) }
    }
}
