#ifndef CLEAKSANITIZER_SHIM_H
#define CLEAKSANITIZER_SHIM_H

/// LeakSanitizer's switch for the allocations of this thread, when the process has the
/// sanitizer's runtime (a build with -sanitize=address): declared weak, so that every other
/// build links and finds them NULL.
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

/// From here to cleakcheck_resume(), what this thread allocates is never reported as leaked.
static inline void cleakcheck_pause(void) {
    if (__lsan_disable) __lsan_disable();
}

static inline void cleakcheck_resume(void) {
    if (__lsan_enable) __lsan_enable();
}

#endif
