#ifndef RINGSIDE_CNGHTTP2_SHIM_H
#define RINGSIDE_CNGHTTP2_SHIM_H
// libnghttp2 1.52 (Debian 12): the ssize_t APIs (mem_recv, mem_send, data_provider) are the current ones.
#include <nghttp2/nghttp2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// A session's allocator (nghttp2_mem): nghttp2 makes about six allocations a request (the stream,
// its frames, header buffers) and frees them at its end. Through glibc's malloc and free that was
// about 1,400 instructions a request (callgrind), where nghttpd links jemalloc. Freed blocks of up
// to RINGSIDE_ARENA_CLASSES * 16 bytes are kept on per-size free lists and handed out again; larger
// ones go to malloc. A session is used by one thread only, so the lists need no lock. Every block
// has a 16-byte header: its size class (0 for a large block) and, for a large one, its size. The
// lists keep at most the arena's `limit` (RINGSIDE_ARENA_KEPT by default), headers counted. A
// server's session sets 2 KB a stream it allows, and is trimmed back to RINGSIDE_ARENA_KEPT once
// idle (HTTP2Session.trimSpareMemory): a burst of a thousand streams does not stay with a quiet
// connection until it closes, and 10,000 idle connections hold at most 320 MB (ten streams at a
// time need about 12 KB). Fuzzing and sanitizer builds use malloc and free instead (HTTP2Session),
// where AddressSanitizer sees every block.
#define RINGSIDE_ARENA_GRAIN 16
#define RINGSIDE_ARENA_CLASSES 64
#define RINGSIDE_ARENA_KEPT (32 * 1024)

typedef struct ringside_arena {
    void *free_lists[RINGSIDE_ARENA_CLASSES];
    size_t kept;
    /// The most bytes the lists keep; 0 is RINGSIDE_ARENA_KEPT. A connection with a thousand
    /// streams in flight sets more (HTTP2Session, HTTP2ClientConnection).
    size_t limit;
    /// Small blocks the free lists could not hand out (taken from malloc): a count for tests.
    size_t misses;
} ringside_arena;

static inline void *ringside_arena_malloc(size_t size, void *user) {
    ringside_arena *arena = (ringside_arena *)user;
    if (size > RINGSIDE_ARENA_CLASSES * RINGSIDE_ARENA_GRAIN) {
        if (size > SIZE_MAX - 2 * RINGSIDE_ARENA_GRAIN) return NULL;
        size_t *header = (size_t *)malloc(size + RINGSIDE_ARENA_GRAIN);
        if (header == NULL) return NULL;
        header[0] = 0;
        header[1] = size;
        return (char *)header + RINGSIDE_ARENA_GRAIN;
    }
    size_t klass = size == 0 ? 1 : (size + RINGSIDE_ARENA_GRAIN - 1) / RINGSIDE_ARENA_GRAIN;
    void *block = arena->free_lists[klass - 1];
    if (block != NULL) {
        arena->free_lists[klass - 1] = *(void **)block;
        arena->kept -= (klass + 1) * RINGSIDE_ARENA_GRAIN;
        return block;
    }
    arena->misses += 1;
    size_t *header = (size_t *)malloc((klass + 1) * RINGSIDE_ARENA_GRAIN);
    if (header == NULL) return NULL;
    header[0] = klass;
    return (char *)header + RINGSIDE_ARENA_GRAIN;
}

static inline void ringside_arena_free(void *block, void *user) {
    if (block == NULL) return;
    ringside_arena *arena = (ringside_arena *)user;
    size_t klass = *(size_t *)((char *)block - RINGSIDE_ARENA_GRAIN);
    size_t limit = arena->limit == 0 ? RINGSIDE_ARENA_KEPT : arena->limit;
    if (klass == 0 || arena->kept + (klass + 1) * RINGSIDE_ARENA_GRAIN > limit) {
        free((char *)block - RINGSIDE_ARENA_GRAIN);
        return;
    }
    *(void **)block = arena->free_lists[klass - 1];
    arena->free_lists[klass - 1] = block;
    arena->kept += (klass + 1) * RINGSIDE_ARENA_GRAIN;
}

static inline void *ringside_arena_calloc(size_t count, size_t size, void *user) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *block = ringside_arena_malloc(count * size, user);
    if (block != NULL) memset(block, 0, count * size);
    return block;
}

static inline void *ringside_arena_realloc(void *block, size_t size, void *user) {
    if (block == NULL) return ringside_arena_malloc(size, user);
    size_t *header = (size_t *)((char *)block - RINGSIDE_ARENA_GRAIN);
    size_t capacity = header[0] == 0 ? header[1] : header[0] * RINGSIDE_ARENA_GRAIN;
    if (header[0] != 0 && size <= capacity) return block;
    void *moved = ringside_arena_malloc(size, user);
    if (moved == NULL) return NULL;
    memcpy(moved, block, capacity < size ? capacity : size);
    ringside_arena_free(block, user);
    return moved;
}

/// Frees the blocks on the free lists (after nghttp2_session_del, which returned every block).
static inline void ringside_arena_release(ringside_arena *arena) {
    for (int klass = 0; klass < RINGSIDE_ARENA_CLASSES; klass++) {
        void *block = arena->free_lists[klass];
        while (block != NULL) {
            void *next = *(void **)block;
            free((char *)block - RINGSIDE_ARENA_GRAIN);
            block = next;
        }
        arena->free_lists[klass] = NULL;
    }
    arena->kept = 0;
}

/// What a session's lists keep while `streams` may be in flight at once: 2 KB each (a stream's
/// blocks are about 1 KB on either side: its header buffers, its frames, the stream itself), at
/// least RINGSIDE_ARENA_KEPT, at most SIZE_MAX / 2 (Swift's Int.max). With 32 KB, a thousand
/// streams in flight sent most blocks to malloc and back (bench/provider-callgrind.sh, both sides).
static inline size_t ringside_arena_limit(size_t streams) {
    const size_t each = 2 * 1024;
    if (streams > (SIZE_MAX / 2) / each) return SIZE_MAX / 2;
    return streams * each < RINGSIDE_ARENA_KEPT ? RINGSIDE_ARENA_KEPT : streams * each;
}

/// Frees blocks from the free lists until they keep at most `bytes` (headers counted).
static inline void ringside_arena_trim(ringside_arena *arena, size_t bytes) {
    // List `index` holds blocks of class index + 1, each (index + 2) grains with its header.
    for (int index = RINGSIDE_ARENA_CLASSES - 1; index >= 0 && arena->kept > bytes; index--) {
        void *block = arena->free_lists[index];
        while (block != NULL && arena->kept > bytes) {
            void *next = *(void **)block;
            free((char *)block - RINGSIDE_ARENA_GRAIN);
            arena->kept -= (size_t)(index + 2) * RINGSIDE_ARENA_GRAIN;
            block = next;
        }
        arena->free_lists[index] = block;
    }
}

/// The nghttp2_mem for `arena`: nghttp2 copies the struct; the arena must outlive the session.
static inline nghttp2_mem ringside_arena_mem(ringside_arena *arena) {
    nghttp2_mem mem;
    mem.mem_user_data = arena;
    mem.malloc = ringside_arena_malloc;
    mem.free = ringside_arena_free;
    mem.calloc = ringside_arena_calloc;
    mem.realloc = ringside_arena_realloc;
    return mem;
}
#endif
