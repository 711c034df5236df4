// A minimal allocation counter: this executable's malloc family forwards to glibc's __libc_* entry points and,
// while counting is enabled, increments one relaxed atomic counter. Symbols defined in the executable interpose
// over libc's for every shared library (the Swift runtime included), so Swift object allocations are counted.
// Counting is off during timed runs (the only cost then is one predictable branch per allocation).
#define _GNU_SOURCE
#include "MallocCounter.h"
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_int counting;
static atomic_uint_fast64_t count;

static inline void note(void) {
    if (__builtin_expect(atomic_load_explicit(&counting, memory_order_relaxed), 0)) {
        atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size) { note(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { note(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { note(); return __libc_realloc(p, size); }
void *memalign(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    note();
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

void malloc_counter_enable(int enabled) { atomic_store(&counting, enabled); }
uint64_t malloc_counter_count(void) { return atomic_load(&count); }
uint64_t malloc_counter_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (uint64_t)(info.uordblks + info.hblkhd);
}
