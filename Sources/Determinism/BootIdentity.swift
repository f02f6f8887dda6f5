/// Names the current run of the operating system, so a store can tell that the machine
/// restarted since it last wrote.
///
/// A process that is killed leaves everything it wrote in the operating system's page cache;
/// a power loss or an OS crash can drop writes that were not flushed. A store that flushes some
/// of its files lazily records the boot identity under which it wrote unflushed data, and
/// distrusts those files when it later opens under another identity. Apps use
/// ``SystemBootIdentity``; tests use ``ManualBootIdentity`` to simulate a restart.
public protocol BootIdentity: Sendable {
    /// An identifier that stays the same until the machine restarts, and changes when it does.
    func current() throws -> String
}
