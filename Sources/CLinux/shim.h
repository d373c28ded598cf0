#ifndef RINGSIDE_CLINUX_SHIM_H
#define RINGSIDE_CLINUX_SHIM_H
#ifdef __linux__
// Linux event-loop calls that Swift's Glibc module does not export (HTTP2Server/Readiness.swift
// uses them only under `#if os(Linux)`; elsewhere it runs poll(2)).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

// prctl is variadic, which Swift cannot call: orphaned descendants of this process (a provider's
// daemon that left its session and cleared its environment) become its children instead of init's,
// so that `ringside run` can stop them when it ends.
static inline int ringside_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

// A child's exit status without reaping it (waitid with WNOWAIT, whose siginfo Swift cannot read):
// -1 while it runs, -2 when it is not our child (reaped already), else its exit code, or 128 + the
// signal that ended it. Unreaped, its pid stays taken, and so does its process group's number.
#include <sys/wait.h>
#include <string.h>
static inline int ringside_exit_status_unreaped(pid_t pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -2;
    if (info.si_pid == 0) return -1;
    return info.si_code == CLD_EXITED ? (info.si_status & 0xff) : 128 + info.si_status;
}

// Names the calling thread (shown by gdb and top). Not pthread_setname_np: that needs _GNU_SOURCE,
// which changes glibc's structs under the other modules that include them.
static inline int ringside_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

// glibc's fast bins off (why: Sources/ringside/main.swift). mallopt's option is a macro of malloc.h,
// which Swift's Glibc module does not export.
#include <malloc.h>
static inline int ringside_fast_bins_off(void) { return mallopt(M_MXFAST, 0); }
// Hands the free pages inside glibc's heaps back to the kernel (why: Scenario/LoadRun.swift,
// `givesBackMemoryEvery`); returns 1 when some were.
static inline int ringside_give_back_free_memory(void) { return malloc_trim(0); }
#else
#include <errno.h>
#include <pthread.h>
static inline int ringside_fast_bins_off(void) { return 0; }
static inline int ringside_give_back_free_memory(void) { return 0; }
// No subreaper outside Linux: orphaned daemons of a provider are not adopted (README, macOS).
static inline int ringside_become_subreaper(void) { errno = ENOSYS; return -1; }
#ifdef __APPLE__
static inline int ringside_name_this_thread(const char *name) { return pthread_setname_np(name); }
#else
static inline int ringside_name_this_thread(const char *name) { (void)name; return 0; }
#endif
#endif
// Asks for the cache line at `address` (a hint: it never faults, whatever the address). The world
// hands finished pushes out under its lock, and each one's first touch was a cache miss: the line
// was written on another core.
static inline void ringside_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }
// The same, for a line about to be written (or its reference count changed): PREFETCHW asks for
// it exclusive, where a read prefetch left it shared and the write had to ask again. Written out,
// because __builtin_prefetch(address, 1, 3) compiles to a read prefetch unless the target declares
// PRFCHW, which Swift's default x86-64 target does not. (Older Intel cores run it as a no-op.)
static inline void ringside_prefetch_for_write(const void *address) {
#if defined(__x86_64__)
    __asm__ volatile("prefetchw (%0)" : : "r"(address));
#else
    __builtin_prefetch(address, 1, 3);
#endif
}
// A spinning thread's pause (x86's PAUSE): it lets the other hyperthread run and saves power.
static inline void ringside_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}
// Every cache line of the `bytes` at `address` (its last byte too: a range that does not start on
// a line's boundary ends in one more line), to be read or to be written.
static inline void ringside_prefetch_lines(const void *address, long bytes) {
    for (long offset = 0; offset < bytes; offset += 64) ringside_prefetch((const char *)address + offset);
    if (bytes > 0) ringside_prefetch((const char *)address + bytes - 1);
}
static inline void ringside_prefetch_lines_for_write(const void *address, long bytes) {
    for (long offset = 0; offset < bytes; offset += 64) ringside_prefetch_for_write((const char *)address + offset);
    if (bytes > 0) ringside_prefetch_for_write((const char *)address + bytes - 1);
}
// Eight bytes another thread may be writing (the world's token table, read without its lock as
// a hint): an atomic load, so the race is defined.
static inline unsigned long long ringside_load_relaxed_u64(const void *address) {
    return __atomic_load_n((const unsigned long long *)address, __ATOMIC_RELAXED);
}
// Its writer's side (a plain store on x86-64): the world writes the table under its lock.
static inline void ringside_store_relaxed_u64(void *address, unsigned long long value) {
    __atomic_store_n((unsigned long long *)address, value, __ATOMIC_RELAXED);
}
#endif
