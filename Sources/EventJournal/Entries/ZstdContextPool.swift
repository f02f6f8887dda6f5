import CZstd
import Synchronization

/// A few zstd contexts kept for reuse, shared by the journal's entries (`PayloadCompression`)
/// and the soups' record values (decision 0030): a call takes one (or makes one) and returns it
/// after.
///
/// zstd's contexts are not thread-safe and are costly to make (hundreds of KiB each). Sharing
/// them is safe because no caller sets sticky parameters: `ZSTD_compressCCtx` takes its level
/// per call, and the dictionary calls take theirs from the digested dictionary.
package final class ZstdContextPool: Sendable {
    /// The pool of compression contexts.
    package static let compression = ZstdContextPool(make: { ZSTD_createCCtx() }, free: { ZSTD_freeCCtx($0) })
    /// The pool of decompression contexts.
    package static let decompression = ZstdContextPool(make: { ZSTD_createDCtx() }, free: { ZSTD_freeDCtx($0) })

    /// More than the threads that compress or decompress at once is waste: the writer, the
    /// decode-ahead thread and a reader or two.
    private static let keptMax = 4
    private let idle = Mutex<[UnsafeContext]>([])
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
    package func withContext<T>(_ body: (OpaquePointer?) -> T) -> T {
        let context = idle.withLock { $0.popLast()?.pointer } ?? make()
        defer {
            if let context {
                let kept = idle.withLock { contexts in
                    guard contexts.count < Self.keptMax else { return false }
                    contexts.append(UnsafeContext(pointer: context))
                    return true
                }
                if !kept { free(context) }
            }
        }
        return body(context)
    }

    /// A context in the pool: only one thread uses it at a time, since a call takes it out.
    // @unchecked because a context is used by the one call that took it out of the pool.
    private struct UnsafeContext: @unchecked Sendable {
        var pointer: OpaquePointer
    }
}
