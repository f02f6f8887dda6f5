import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// `BuiltProduct.run` used to start its child with Foundation's `Process` and poll `isRunning`.
// On Linux `Process` learns of a child's end from a socket that the child holds open, and every
// other child started meanwhile by another test inherits that socket too: the exit is seen only
// once all of them have ended, and a test waited for ever on a child that had long since
// exited and stayed a zombie (issue 49, the damage campaign's case 144). A `SpawnedChild` is
// spawned with `posix_spawn`, keeps no descriptor of its parent beyond the three standard
// ones, and is reaped by `waitpid` on its own pid from a thread that does nothing else.

/// A child process spawned without Foundation's `Process`, and reaped by its own pid.
struct SpawnedChild: Sendable {
    /// The child's process id; valid until ``ended(beforeReaping:)`` returns.
    let pid: pid_t

    /// How a child ended.
    struct End: Sendable {
        /// The exit status, or the signal number when ``wasKilled``.
        var status: Int32
        /// Whether a signal ended the child.
        var wasKilled: Bool
    }

    /// Spawns `executable`, its standard output and error written to (truncated) files.
    ///
    /// The child inherits standard input and nothing else: no other descriptor of the test
    /// process (`posix_spawn_file_actions_addclosefrom_np` on Linux, `POSIX_SPAWN_CLOEXEC_DEFAULT`
    /// on Darwin), its signal mask empty and every signal at its default action.
    /// - Parameters:
    ///   - executable: the executable's path.
    ///   - arguments: the arguments, without the executable's name.
    ///   - environment: the environment, or `nil` for the test's own.
    ///   - standardOutput: the file standard output is written to.
    ///   - standardError: the file standard error is written to.
    /// - Throws: `POSIXError` when the child cannot be spawned.
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String]?, standardOutput: String,
        standardError: String
    ) throws -> SpawnedChild {
        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        let flags = O_WRONLY | O_CREAT | O_TRUNC
        try check(posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, standardOutput, flags, 0o644))
        try check(posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, standardError, flags, 0o644))
        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        try check(posix_spawnattr_setsigmask(&attributes, &noSignals))
        try check(posix_spawnattr_setsigdefault(&attributes, &allSignals))
        var spawnFlags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
            spawnFlags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
            try check(closeFrom(&actions, STDERR_FILENO + 1))
        #endif
        try check(posix_spawnattr_setflags(&attributes, Int16(spawnFlags)))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environmentLines: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { environmentLines?.forEach { free($0) } }
        var pid = pid_t()
        let spawned = argv.withUnsafeBufferPointer { argv in
            guard let argv = argv.baseAddress else { return EINVAL }
            guard let environmentLines else {
                return posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            }
            return environmentLines.withUnsafeBufferPointer { envp in
                posix_spawn(&pid, executable, &actions, &attributes, argv, envp.baseAddress)
            }
        }
        try check(spawned)
        return SpawnedChild(pid: pid)
    }

    /// Waits, without blocking a thread of the cooperative pool, until the child ends; then
    /// calls `beforeReaping` while its pid still names it (a zombie), reaps it, and says how
    /// it ended.
    ///
    /// The wait is a blocking `waitid` on this child's pid alone, on a thread of its own: no
    /// polling, and no window in which the end goes unseen. `beforeReaping` is where a watchdog
    /// stops signalling the pid, which could name another process once it is reaped.
    func ended(beforeReaping: @escaping @Sendable () -> Void) async -> End {
        let pid = pid
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var information = siginfo_t()
                var waited = waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT)
                while waited == -1, errno == EINTR {
                    waited = waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT)
                }
                beforeReaping()
                var status: Int32 = 0
                var reaped = waitpid(pid, &status, 0)
                while reaped == -1, errno == EINTR { reaped = waitpid(pid, &status, 0) }
                guard reaped == pid else {
                    // Someone else reaped it (`SIGCHLD` ignored): how it ended is unknown, and
                    // an unknown end must not read as success.
                    continuation.resume(returning: End(status: -1, wasKilled: false))
                    return
                }
                // The <sys/wait.h> macros, which Swift does not import.
                let signal = status & 0x7f
                continuation.resume(
                    returning: signal == 0
                        ? End(status: (status >> 8) & 0xff, wasKilled: false) : End(status: signal, wasKilled: true))
            }
        }
    }

    #if !canImport(Darwin)
        /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later), which the Glibc
        /// module does not declare: looked up by name, so that a missing one is an error, not a
        /// link failure.
        private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return ENOSYS }
            return unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
        }
    #endif

    /// Throws the `POSIXError` of a nonzero result of a `posix_spawn*` call.
    private static func check(_ result: Int32) throws {
        guard result != 0 else { return }
        throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
    }
}
