#ifndef CDAMAGEFAULTS_H
#define CDAMAGEFAULTS_H

// Damage notes for LMDB environments, written from LMDB's assert callback, from its damage
// error codes, and from a SIGSEGV or SIGBUS handler when a damaged page makes LMDB (or code
// reading a value in the map) fault. C because a signal handler may only call async-signal-safe
// functions and touch memory prepared in advance: Swift code may allocate or take locks.
//
// A thread says which environments it is reading with `cdamage_enter` and `cdamage_leave`
// around each transaction. A fault is blamed on the one whose map holds the faulting address,
// or, when the faulting instruction is in LMDB's code, on each one the thread is reading; any
// other fault, and every fault once the notes are written, goes on to the handler that was
// installed before (Swift's backtracer, or the default action).

#include <stddef.h>
#include <stdint.h>

/// What one environment's note needs, prepared when the environment opens.
typedef struct cdamage_note cdamage_note;

/// A note for the environment in `directory_path`, written to `note_path`, starting with
/// `identity_line` (the data file's device and inode, and a line break). Copies the strings.
/// Returns NULL when memory is short.
cdamage_note *cdamage_note_create(const char *note_path, const char *directory_path, const char *identity_line);

/// Frees `note`. No thread may be inside `cdamage_enter(note)` any more.
void cdamage_note_destroy(cdamage_note *note);

/// Records where the environment's map lies now; called after every change of the map.
void cdamage_note_set_map(cdamage_note *note, const void *address, size_t size);

/// Writes the note with `message` (may be NULL), synced, and syncs its directory. Best effort,
/// and async-signal-safe.
void cdamage_note_record(const cdamage_note *note, const char *message);

/// Makes the calling thread's faults count against `note` too until `cdamage_leave` (NULL, for
/// an environment that notes no damage, changes nothing); returns the token `cdamage_leave`
/// takes. Calls nest.
int cdamage_enter(const cdamage_note *note);

/// Ends what the `cdamage_enter` that returned `previous` began, and every later one.
void cdamage_leave(int previous);

/// Installs the SIGSEGV and SIGBUS handlers, once per process. `library_function` is any
/// function of liblmdb: the code of the library that holds it is LMDB's code. Returns 0, or
/// errno when a handler could not be installed.
int cdamage_install_fault_handlers(const void *library_function);

/// After a note is written (assertion or fault), end the process with `status` and write `line`
/// (`length` bytes) to standard error instead of LMDB's abort or the signal. For command-line
/// tools; copies the line, at most 1,023 bytes.
void cdamage_plan_exit(int status, const char *line, size_t length);

/// Ends the process as `cdamage_plan_exit` asked; returns when nothing was planned.
void cdamage_end_process_if_planned(void);

#endif
