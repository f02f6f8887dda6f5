#define _GNU_SOURCE
#include "CDamageFaults.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <link.h>
#include <ucontext.h>
#elif defined(__APPLE__)
#include <sys/ucontext.h>
#endif

struct cdamage_note {
    char *note_path;
    char *directory_path;
    char *identity_line;
    size_t identity_length;
    // Written when the map changes, which LMDB does only while no transaction of the process
    // is open; atomics keep a handler on another thread from reading a torn value.
    _Atomic uintptr_t map_start;
    _Atomic size_t map_size;
};

// The environments that note damage whose transactions the thread is in, innermost last. A
// read of one can run inside a transaction of another (verify compares the stored projections
// inside a read of its scratch copy), so each open one stays blamable, not just the innermost.
enum { thread_note_count_max = 8 };
static _Thread_local const cdamage_note *thread_notes[thread_note_count_max];
static _Thread_local int thread_note_count;

// LMDB's code: the executable segments of the object holding liblmdb, found at installation.
enum { library_segment_count_max = 8 };
static uintptr_t library_segment_starts[library_segment_count_max];
static uintptr_t library_segment_ends[library_segment_count_max];
static int library_segment_count;

static struct sigaction previous_segv_action;
static struct sigaction previous_bus_action;
static pthread_once_t installation = PTHREAD_ONCE_INIT;
static const void *installation_library_function;
static int installation_error;

static _Atomic int exit_planned;
static int exit_status;
static char exit_line[1024];
static size_t exit_line_length;

static const char segv_message[] = "LMDB faulted (SIGSEGV) reading a damaged page";
static const char bus_message[] = "LMDB faulted (SIGBUS) reading past the end of a damaged data file";

static char *copy_string(const char *string) {
    size_t length = strlen(string);
    char *copy = malloc(length + 1);
    if (copy != NULL) memcpy(copy, string, length + 1);
    return copy;
}

cdamage_note *cdamage_note_create(const char *note_path, const char *directory_path, const char *identity_line) {
    cdamage_note *note = calloc(1, sizeof *note);
    if (note == NULL) return NULL;
    note->note_path = copy_string(note_path);
    note->directory_path = copy_string(directory_path);
    note->identity_line = copy_string(identity_line);
    if (note->note_path == NULL || note->directory_path == NULL || note->identity_line == NULL) {
        cdamage_note_destroy(note);
        return NULL;
    }
    note->identity_length = strlen(identity_line);
    return note;
}

void cdamage_note_destroy(cdamage_note *note) {
    if (note == NULL) return;
    free(note->note_path);
    free(note->directory_path);
    free(note->identity_line);
    free(note);
}

void cdamage_note_set_map(cdamage_note *note, const void *address, size_t size) {
    atomic_store(&note->map_start, (uintptr_t)address);
    atomic_store(&note->map_size, size);
}

static void write_all(int descriptor, const char *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = write(descriptor, bytes, count);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        bytes += written;
        count -= (size_t)written;
    }
}

void cdamage_note_record(const cdamage_note *note, const char *message) {
    int saved_errno = errno;
    int descriptor = open(note->note_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (descriptor >= 0) {
        write_all(descriptor, note->identity_line, note->identity_length);
        if (message != NULL) write_all(descriptor, message, strlen(message));
        write_all(descriptor, "\n", 1);
        fsync(descriptor);
        close(descriptor);
        int directory = open(note->directory_path, O_RDONLY | O_CLOEXEC);
        if (directory >= 0) {
            fsync(directory);
            close(directory);
        }
    }
    errno = saved_errno;
}

int cdamage_enter(const cdamage_note *note) {
    int previous = thread_note_count;
    if (note == NULL) return previous;
    // Deeper than the stack holds: counted, so that leaving stays balanced, but not blamed.
    if (previous < thread_note_count_max) thread_notes[previous] = note;
    thread_note_count = previous + 1;
    return previous;
}

void cdamage_leave(int previous) { thread_note_count = previous; }

void cdamage_plan_exit(int status, const char *line, size_t length) {
    if (length >= sizeof exit_line) length = sizeof exit_line - 1;
    memcpy(exit_line, line, length);
    exit_line_length = length;
    exit_status = status;
    atomic_store(&exit_planned, 1);
}

void cdamage_end_process_if_planned(void) {
    if (!atomic_load(&exit_planned)) return;
    write_all(STDERR_FILENO, exit_line, exit_line_length);
    _exit(exit_status);
}

static int is_library_code(uintptr_t instruction) {
    for (int index = 0; index < library_segment_count; index += 1) {
        if (instruction >= library_segment_starts[index] && instruction < library_segment_ends[index]) return 1;
    }
    return 0;
}

static int holds_address(const cdamage_note *note, uintptr_t address) {
    uintptr_t start = atomic_load(&note->map_start);
    return start != 0 && address >= start && address - start < atomic_load(&note->map_size);
}

static const void *faulting_instruction(void *context) {
    ucontext_t *state = context;
#if defined(__linux__) && defined(__x86_64__)
    return (const void *)state->uc_mcontext.gregs[REG_RIP];
#elif defined(__linux__) && defined(__aarch64__)
    return (const void *)state->uc_mcontext.pc;
#elif defined(__APPLE__) && defined(__x86_64__)
    return (const void *)state->uc_mcontext->__ss.__rip;
#elif defined(__APPLE__) && defined(__arm64__)
    return (const void *)__darwin_arm_thread_state64_get_pc(state->uc_mcontext->__ss);
#else
    (void)state;
    return NULL;
#endif
}

// Hands the fault to the handler installed before this one by putting it back: returning then
// runs the faulting instruction again, and the kernel delivers the new fault to that handler
// (Swift's backtracer, or the default action) exactly as if this one had never been installed.
// Calling the previous handler from here instead leaves Swift's backtracer hanging halfway
// through its report. The process is ending, so losing this handler costs nothing.
static void pass_on(int signal_number, siginfo_t *info) {
    const struct sigaction *previous = signal_number == SIGBUS ? &previous_bus_action : &previous_segv_action;
    sigaction(signal_number, previous, NULL);
    // A signal sent by kill() is not raised again by returning: send it again, delivered once
    // the handler returns and the signal is unblocked.
    if (info->si_code <= 0) raise(signal_number);
}

// Blames the fault on the environment whose map holds the faulting address; failing that, when
// the faulting instruction is LMDB's, on every environment the thread is reading (a fault in
// LMDB's code with an address outside every map is a pointer read from a damaged page, and
// which environment's page cannot be told).
static void on_fault(int signal_number, siginfo_t *info, void *context) {
    int count = thread_note_count < thread_note_count_max ? thread_note_count : thread_note_count_max;
    // si_code > 0: the kernel raised it for this instruction, not another process's kill().
    if (count > 0 && info->si_code > 0) {
        const char *message = signal_number == SIGBUS ? bus_message : segv_message;
        int blamed = 0;
        for (int index = 0; index < count; index += 1) {
            if (!holds_address(thread_notes[index], (uintptr_t)info->si_addr)) continue;
            cdamage_note_record(thread_notes[index], message);
            blamed = 1;
        }
        if (!blamed && is_library_code((uintptr_t)faulting_instruction(context))) {
            for (int index = 0; index < count; index += 1) cdamage_note_record(thread_notes[index], message);
            blamed = 1;
        }
        if (blamed) cdamage_end_process_if_planned();
    }
    pass_on(signal_number, info);
}

#if defined(__linux__)
static int find_library_segments(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    uintptr_t function = (uintptr_t)context;
    int holds = 0;
    for (int index = 0; index < info->dlpi_phnum; index += 1) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (header->p_type == PT_LOAD && function >= start && function < start + header->p_memsz) holds = 1;
    }
    if (!holds) return 0;
    for (int index = 0; index < info->dlpi_phnum && library_segment_count < library_segment_count_max; index += 1) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_X) == 0) continue;
        library_segment_starts[library_segment_count] = info->dlpi_addr + header->p_vaddr;
        library_segment_ends[library_segment_count] = info->dlpi_addr + header->p_vaddr + header->p_memsz;
        library_segment_count += 1;
    }
    return 1;
}
#endif

static void install(void) {
#if defined(__linux__)
    dl_iterate_phdr(find_library_segments, (void *)installation_library_function);
#endif
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSEGV, &action, &previous_segv_action) != 0 || sigaction(SIGBUS, &action, &previous_bus_action) != 0) {
        installation_error = errno;
    }
}

int cdamage_install_fault_handlers(const void *library_function) {
    installation_library_function = library_function;
    pthread_once(&installation, install);
    return installation_error;
}
