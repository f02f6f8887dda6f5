import LosslessJSON

/// The key orders of the last few objects a page's serialization wrote, each with its keys
/// already serialized, so an object with one of those key sets is written without sorting its
/// keys or escaping them again.
///
/// Sorting each record's keys was more than half of serializing a page of org-shaped records:
/// such a page mixes a few key sets (records without some optional fields, and each record's
/// `attributes` object), so remembering only the previous record's order missed often.
///
/// An order is tried for an object with as many members; it matches when every one of its keys
/// is a member. Its keys are distinct, so the object then has exactly those keys, and the bytes
/// written are what `JSONValue.object(_:).write(into:)` writes: the keys in UTF-8 byte order,
/// each escaped as a string.
struct ObjectKeyOrders {
    /// One object's keys in serialization order.
    struct Order {
        /// The keys, in UTF-8 byte order.
        let keys: [String]
        /// Each key serialized as a string followed by `:`, as a serialization writes it.
        let keyBytes: [[UInt8]]
        /// Whether some key begins with `_`.
        let hasKeyStartingWithUnderscore: Bool
        /// The index of the first key whose first byte sorts after `_`, if there is one.
        let firstKeyAfterUnderscore: Int?

        init(sortedKeys keys: [String]) {
            self.keys = keys
            keyBytes = keys.map { key in
                var bytes = JSONValue.string(key).serialized()
                bytes.append(UInt8(ascii: ":"))
                return bytes
            }
            let underscore = UInt8(ascii: "_")
            hasKeyStartingWithUnderscore = keys.contains { $0.utf8.first == underscore }
            firstKeyAfterUnderscore = keys.firstIndex { key in key.utf8.first.map { $0 > underscore } ?? false }
        }
    }

    /// The most orders kept for each depth: a page of org-shaped records holds a handful of key
    /// sets; more would only lengthen a miss.
    static let orderCountMax = 8

    /// The kept orders of the objects at each depth (records at 0, their objects' objects at 1,
    /// …), the most recently used first. Kept apart by depth so that writing a member's object
    /// never reorders the orders its enclosing object is being matched against.
    private var ordersByDepth: [[Order]] = []

    init() {}

    /// Writes `value` as `value.write(into:)` does, writing objects through the kept orders.
    mutating func write(_ value: JSONValue, into bytes: inout [UInt8], depth: Int = 0) {
        switch value {
        case .object(let members):
            writeObject(members, into: &bytes, depth: depth)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element, into: &bytes, depth: depth + 1)
            }
            bytes.append(UInt8(ascii: "]"))
        default:
            value.write(into: &bytes)
        }
    }

    /// Writes an object as `JSONValue.object(members).write(into:)` does.
    ///
    /// - Returns: the order of its keys, and `splitOffset`: the offset in `bytes` where its
    ///   first key after `_` starts, or `nil` when no key sorts after `_`.
    @discardableResult
    mutating func writeObject(_ members: [String: JSONValue], into bytes: inout [UInt8], depth: Int = 0) -> (
        order: Order, splitOffset: Int?
    ) {
        while ordersByDepth.count <= depth { ordersByDepth.append([]) }
        let start = bytes.count
        var splitOffset: Int?
        for index in ordersByDepth[depth].indices where ordersByDepth[depth][index].keys.count == members.count {
            let order = ordersByDepth[depth][index]
            if write(members, in: order, into: &bytes, depth: depth, splitOffset: &splitOffset) {
                // The most recently used order is tried first for the next object.
                if index > 0 {
                    ordersByDepth[depth].remove(at: index)
                    ordersByDepth[depth].insert(order, at: 0)
                }
                return (order, splitOffset)
            }
            // Not this key set: drop what was written and try the next order.
            bytes.removeSubrange(start...)
        }
        let order = Order(sortedKeys: members.keys.sorted { JSONValue.utf8Precedes($0, $1) })
        if ordersByDepth[depth].count == Self.orderCountMax { ordersByDepth[depth].removeLast() }
        ordersByDepth[depth].insert(order, at: 0)
        let isWritten = write(members, in: order, into: &bytes, depth: depth, splitOffset: &splitOffset)
        precondition(isWritten, "An object's own sorted keys are all its members")
        return (order, splitOffset)
    }

    /// Writes the object in `order`, noting in `splitOffset` where its first key after `_`
    /// starts; `false` (having written part of it) when some key of `order` is not a member.
    private mutating func write(
        _ members: [String: JSONValue], in order: Order, into bytes: inout [UInt8], depth: Int,
        splitOffset: inout Int?
    ) -> Bool {
        splitOffset = nil
        bytes.append(UInt8(ascii: "{"))
        for index in order.keys.indices {
            guard let value = members[order.keys[index]] else { return false }
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if index == order.firstKeyAfterUnderscore { splitOffset = bytes.count }
            bytes.append(contentsOf: order.keyBytes[index])
            write(value, into: &bytes, depth: depth + 1)
        }
        bytes.append(UInt8(ascii: "}"))
        return true
    }
}
