#ifndef CLIBICAL_SHIM_H
#define CLIBICAL_SHIM_H

#include <libical/ical.h>
#include <stdio.h>

/// `icalerrno` is a macro over `icalerrno_return()`, which Swift cannot import.
static inline icalerrorenum clibical_errno(void) { return *icalerrno_return(); }

/// Resets `icalerrno` so that a later check sees only the error of the next call.
static inline void clibical_clear_errno(void) { *icalerrno_return() = ICAL_NO_ERROR; }

#endif
