#ifndef CTCMALLOC_SHIM_H
#define CTCMALLOC_SHIM_H

#include <stddef.h>

/// gperftools' version and its allocator's counters, declared here alone: their headers
/// also declare malloc and free, which the Glibc module declares already.
const char *tc_version(int *major, int *minor, const char **patch);
int MallocExtension_GetNumericProperty(const char *property, size_t *value);

/// Bytes allocated through tcmalloc and not freed: above zero once anything is allocated,
/// when malloc is tcmalloc's and not only linked in.
static inline size_t ctcmalloc_allocated_bytes(void) {
    size_t bytes = 0;
    return MallocExtension_GetNumericProperty("generic.current_allocated_bytes", &bytes)
        ? bytes : 0;
}

#endif
