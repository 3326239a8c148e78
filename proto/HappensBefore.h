#pragma once

// Hand-offs between threads that go through a library Debian builds without ThreadSanitizer,
// stated to TSan so that a TSan build does not report them as races:
//  - gRPC's callback API runs a reactor's callbacks (OnReadDone, OnWriteDone, OnCancel, OnDone)
//    and a unary call's completion on its own threads, after the operation that caused them
//    (StartWrite, StartRead, Finish, TryCancel, starting the call, a handler returning a
//    reactor); gRPC core keeps that order with its completion queues and absl::Mutex;
//  - Qt's event queue runs a posted event on the receiver's thread after the post; its lock is
//    inside libQt6Core.
// The order is real; TSan just cannot see it. publish(token) just before handing over and
// receive(token) first thing on the other side state it for that token (a reactor's or a call's
// address, an event) and nothing more: two of our threads touching a field without a lock are
// still reported. They compile to nothing unless WATCHFLOOR_TSAN_BUILD is defined, which the TSan
// preset does (cmake/Sanitizers.cmake: it cannot key on __SANITIZE_THREAD__, which it removes).

#ifdef WATCHFLOOR_TSAN_BUILD
#include <sanitizer/tsan_interface.h>
#endif

namespace watchfloor::happensbefore {

inline void publish([[maybe_unused]] const void* token) {
#ifdef WATCHFLOOR_TSAN_BUILD
    __tsan_release(const_cast<void*>(token));
#endif
}

inline void receive([[maybe_unused]] const void* token) {
#ifdef WATCHFLOOR_TSAN_BUILD
    __tsan_acquire(const_cast<void*>(token));
#endif
}

}  // namespace watchfloor::happensbefore
