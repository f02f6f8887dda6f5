import CZstd
import Synchronization

/// A few zstd contexts kept for reuse by the record values' compression (decision 0030).
///
/// zstd's contexts are not thread-safe and are costly to make (hundreds of KiB each), so each
/// call takes one from the pool, or makes one, and gives it back. The journal keeps a pool of
/// its own for entries (`PayloadCompression`); the two do not share, so neither module exposes
/// its contexts.
final class ZstdContexts: Sendable {
    /// The pool of compression contexts.
    static let compression = ZstdContexts(make: { ZSTD_createCCtx() }, free: { ZSTD_freeCCtx($0) })
    /// The pool of decompression contexts.
    static let decompression = ZstdContexts(make: { ZSTD_createDCtx() }, free: { ZSTD_freeDCtx($0) })

    /// More than the threads that compress or open at once is waste: the writer, the
    /// decode-ahead thread and a few readers.
    private static let keptMax = 4
    private let idle = Mutex<[Context]>([])
    private let make: @Sendable () -> OpaquePointer?
    private let free: @Sendable (OpaquePointer) -> Void

    private init(make: @escaping @Sendable () -> OpaquePointer?, free: @escaping @Sendable (OpaquePointer) -> Void) {
        self.make = make
        self.free = free
    }

    deinit {
        idle.withLock { contexts in
            for context in contexts { free(context.pointer) }
        }
    }

    /// Runs `body` with a context of its own, `nil` only when zstd could not allocate one.
    func withContext<T>(_ body: (OpaquePointer?) -> T) -> T {
        let context = idle.withLock { $0.popLast()?.pointer } ?? make()
        defer {
            if let context {
                let kept = idle.withLock { contexts in
                    guard contexts.count < Self.keptMax else { return false }
                    contexts.append(Context(pointer: context))
                    return true
                }
                if !kept { free(context) }
            }
        }
        return body(context)
    }

    /// A context in the pool: only one thread uses it at a time, since a call takes it out.
    // @unchecked because a context is used by the one call that took it out of the pool.
    private struct Context: @unchecked Sendable {
        var pointer: OpaquePointer
    }
}
