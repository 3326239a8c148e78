#pragma once

// gRPC's callback API runs a reactor's callbacks (OnReadDone, OnWriteDone, OnCancel, OnDone) on
// its own threads, after the operation that caused them (the handler returning the reactor,
// StartWrite, StartRead, Finish, TryCancel). That order is real, but it is kept by gRPC core's
// completion queues and absl::Mutex, which Debian builds without ThreadSanitizer, so in a TSan
// build a reactor's own fields written before an operation and read in its callback look racy.
// These two calls state the order to TSan, on the reactor's address, and nothing more: an access
// of ours that no operation orders (two of our threads touching a field without a lock) is still
// reported. They compile to nothing unless WATCHFLOOR_TSAN_BUILD is defined, which the TSan
// preset does (cmake/Sanitizers.cmake: it cannot key on __SANITIZE_THREAD__, which it removes).
//
//   handOffToGrpc(this)   just before each operation that may run a callback on another thread
//                         (and before a handler returns a new reactor to gRPC);
//   resumeFromGrpc(this)  first thing in every callback.

#ifdef WATCHFLOOR_TSAN_BUILD
#include <sanitizer/tsan_interface.h>
#endif

namespace watchfloor::grpcsync {

inline void handOffToGrpc([[maybe_unused]] const void* reactor) {
#ifdef WATCHFLOOR_TSAN_BUILD
    __tsan_release(const_cast<void*>(reactor));
#endif
}

inline void resumeFromGrpc([[maybe_unused]] const void* reactor) {
#ifdef WATCHFLOOR_TSAN_BUILD
    __tsan_acquire(const_cast<void*>(reactor));
#endif
}

}  // namespace watchfloor::grpcsync
