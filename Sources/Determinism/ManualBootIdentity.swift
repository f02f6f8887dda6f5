import Synchronization

/// A boot identity that tests set: ``restart()`` simulates a power loss or an OS crash.
public final class ManualBootIdentity: BootIdentity {
    private let identity: Mutex<String>

    /// Starts with `identity`.
    public init(_ identity: String = "boot-1") {
        self.identity = Mutex(identity)
    }

    public func current() -> String {
        identity.withLock { $0 }
    }

    /// Moves to the next boot: `boot-1` becomes `boot-2`, any other name gains `+`.
    public func restart() {
        identity.withLock { identity in
            if identity.hasPrefix("boot-"), let number = Int(identity.dropFirst(5)) {
                identity = "boot-\(number + 1)"
            } else {
                identity += "+"
            }
        }
    }
}
