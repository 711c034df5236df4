#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H

#include <stdint.h>

/// Starts or stops counting allocation calls (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign).
void malloc_counter_enable(int enabled);
/// The number of allocation calls counted so far, on every thread.
uint64_t malloc_counter_count(void);
/// Bytes currently allocated from the heap (mallinfo2: in-use arena chunks plus mmapped chunks).
uint64_t malloc_counter_bytes_in_use(void);

#endif
