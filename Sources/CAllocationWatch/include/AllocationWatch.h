#ifndef MEDIAD_ALLOCATION_WATCH_H
#define MEDIAD_ALLOCATION_WATCH_H

#include <stddef.h>

/// How many allocations have failed in this process: calls of malloc, calloc, realloc and the aligned
/// allocators that returned nothing for want of memory, in mediad's code or any library's (libav, x264,
/// x265, SVT-AV1, the Swift runtime). Counted on glibc only, where the allocator can be wrapped.
unsigned long mediad_failed_allocations(void);

/// The size in bytes of the last allocation that failed; 0 when none has.
size_t mediad_last_failed_allocation(void);

/// Lets the next failure write its line to stderr again: each failure after this call writes
/// `mediad: an allocation of N bytes failed (out of memory)` once, so that a process that then crashes
/// (the Swift runtime traps when an allocation fails) leaves the reason for whoever reads its stderr.
void mediad_rearm_allocation_report(void);

#endif
