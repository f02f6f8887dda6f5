import Synchronization

/// The idle Smart SQL connections of the process, shared by every store.
///
/// A connection holds no data and no statement between executions, and belongs to no store:
/// each execution gives it its own reader. So any execution whose catalog equals a connection's
/// may take it. At most ``idleCountMax`` wait; past that the oldest is closed.
final class SmartSQLConnectionPool: Sendable {
    static let shared = SmartSQLConnectionPool()

    /// The most connections kept idle: one per thread running smart queries at once is enough.
    static let idleCountMax = 4

    /// A connection waiting in the pool.
    // @unchecked: a connection is used by one thread at a time: `take` removes it from the
    // pool under the lock before anyone uses it, and only the thread that took it gives it back.
    private struct Idle: @unchecked Sendable {
        let connection: SmartSQLConnection
    }

    private let idle = Mutex<[Idle]>([])

    /// An idle connection made for `soups`, removed from the pool, or `nil`.
    func take(matching soups: [SmartSoup]) -> SmartSQLConnection? {
        idle.withLock { idle in
            guard let found = idle.lastIndex(where: { $0.connection.soups == soups }) else { return nil }
            return idle.remove(at: found).connection
        }
    }

    /// Puts a connection no one uses any more back, closing the oldest idle one when full.
    func giveBack(_ connection: SmartSQLConnection) {
        let evicted = idle.withLock { idle -> Idle? in
            idle.append(Idle(connection: connection))
            return idle.count > Self.idleCountMax ? idle.removeFirst() : nil
        }
        // Closed here, outside the lock: closing frees the connection's memory.
        _ = evicted
    }
}
