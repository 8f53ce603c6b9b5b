// Wraps glibc's allocator to count the allocations that fail. A job under --job-memory fails for want of
// memory when an allocation does, but what it reports then depends on who allocated: libav says ENOMEM,
// x264, x265 and SVT-AV1 fail their open with a generic error, the Swift runtime traps. Counting at the
// allocator names the cause whoever asked.
//
// Defining malloc and its relatives in the executable interposes them for every shared library of the
// process (ELF symbol lookup finds the executable's definition first); each forwards to glibc's own
// implementation (__libc_malloc, …), so every block still comes from, and goes back to, glibc's allocator,
// and free needs no wrapper.
#include "AllocationWatch.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__GLIBC__)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *block, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static atomic_ulong failures;
static atomic_size_t lastFailure;
static atomic_int reported;

/// Counts a failure and writes its line to stderr the first time since the last re-arm: with write(2)
/// and a buffer on the stack, since nothing may be allocated here. errno is kept.
static void noteFailure(size_t size) {
    int saved = errno;
    atomic_fetch_add(&failures, 1);
    atomic_store(&lastFailure, size);
    if (!atomic_exchange(&reported, 1)) {
        static const char prefix[] = "mediad: an allocation of ";
        static const char suffix[] = " bytes failed (out of memory)\n";
        char line[sizeof(prefix) + 24 + sizeof(suffix)];
        size_t length = sizeof(prefix) - 1;
        for (size_t i = 0; i < length; i++) line[i] = prefix[i];
        char digits[24];
        size_t count = 0;
        do {
            digits[count++] = (char)('0' + size % 10);
            size /= 10;
        } while (size > 0);
        while (count > 0) line[length++] = digits[--count];
        for (size_t i = 0; i < sizeof(suffix) - 1; i++) line[length++] = suffix[i];
        ssize_t written = write(STDERR_FILENO, line, length);
        (void)written;
    }
    errno = saved;
}

void *malloc(size_t size) {
    void *block = __libc_malloc(size);
    if (block == NULL) noteFailure(size);
    return block;
}

void *calloc(size_t count, size_t size) {
    void *block = __libc_calloc(count, size);
    if (block == NULL) noteFailure(size != 0 && count > SIZE_MAX / size ? SIZE_MAX : count * size);
    return block;
}

void *realloc(void *old, size_t size) {
    void *block = __libc_realloc(old, size);
    // realloc(p, 0) frees p and returns NULL: no failure.
    if (block == NULL && size != 0) noteFailure(size);
    return block;
}

void *memalign(size_t alignment, size_t size) {
    void *block = __libc_memalign(alignment, size);
    if (block == NULL && errno == ENOMEM) noteFailure(size);
    return block;
}

void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment == 0 || alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *block = __libc_memalign(alignment, size);
    if (block == NULL) {
        noteFailure(size);
        return ENOMEM;
    }
    *result = block;
    return 0;
}

void *valloc(size_t size) {
    void *block = __libc_valloc(size);
    if (block == NULL) noteFailure(size);
    return block;
}

void *pvalloc(size_t size) {
    void *block = __libc_pvalloc(size);
    if (block == NULL) noteFailure(size);
    return block;
}

unsigned long mediad_failed_allocations(void) { return atomic_load(&failures); }

size_t mediad_last_failed_allocation(void) { return atomic_load(&lastFailure); }

void mediad_rearm_allocation_report(void) { atomic_store(&reported, 0); }

#else

unsigned long mediad_failed_allocations(void) { return 0; }

size_t mediad_last_failed_allocation(void) { return 0; }

void mediad_rearm_allocation_report(void) {}

#endif
