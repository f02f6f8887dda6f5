import CDamageFaults

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes an environment's ``DamageNote``; handed to LMDB as the environment's user context,
/// so that the assert callback, which receives only the environment, can find it, and entered
/// by every transaction of the environment, so that the fault handler can.
///
/// The note is written by C code (`CDamageFaults`) from bytes prepared here, because it may be
/// written inside a signal handler, where only async-signal-safe calls are allowed.
final class DamageNoteWriter: Sendable {
    // The C note is written once here and read only by C, which synchronizes its map fields.
    nonisolated(unsafe) let note: OpaquePointer

    init?(directory: String) {
        var status = stat()
        guard stat(directory + "/data.mdb", &status) == 0,
            let note = cdamage_note_create(
                directory + "/" + DamageNote.fileName, directory, "file \(status.st_dev):\(status.st_ino)\n")
        else { return nil }
        self.note = note
    }

    deinit {
        cdamage_note_destroy(note)
    }

    /// Writes the note with `message`, synced with its directory. Best effort: a note that
    /// cannot be written leaves the process as it would have been without one.
    func record(message: UnsafePointer<CChar>?) {
        cdamage_note_record(note, message)
    }

    /// Tells the fault handler where the environment's map lies now.
    func noteMap(address: UnsafeRawPointer?, size: Int) {
        cdamage_note_set_map(note, address, size)
    }

    /// Installs the process's fault handlers (once); `libraryFunction` is any function of
    /// liblmdb, which tells the handler where LMDB's code is.
    static func installFaultHandlers(libraryFunction: UnsafeRawPointer) {
        // An error leaves faults as they were without this handler: no note, nothing worse.
        _ = cdamage_install_fault_handlers(libraryFunction)
    }

    /// Runs `body` with the calling thread's faults blamable on `writer`'s environment too;
    /// `nil` (an environment that notes no damage) changes nothing, so a transaction of another
    /// environment nested in one that notes damage keeps the outer one blamable.
    static func blamingFaults<T, Failure>(on writer: DamageNoteWriter?, _ body: () throws(Failure) -> T)
        throws(Failure) -> T
    {
        let previous = cdamage_enter(writer?.note)
        defer { cdamage_leave(previous) }
        return try body()
    }

    /// What the assert callback does after the note: ends the process as the tools asked, or
    /// returns so that LMDB aborts.
    static func endProcessIfAsked() {
        cdamage_end_process_if_planned()
    }
}
