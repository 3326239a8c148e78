#pragma once
// What a sanitizer build changes for tests that measure:
//  - memory: TSan's shadow memory and history grow with every access, so a test's RSS bounds say
//    nothing there (its race reports do that job). ASan's quarantine is held to 16 MB by its preset
//    and its shadow is an eighth of what grows, so growth bounds still mean a leak there and stay on;
//  - speed: TSan runs our code 5-15 times slower, ASan 2-3 times (measured at 78721f1: a twin asked
//    for 600x made 190-300 ticks a second under ASan, 600 in a release build). A test that checks a
//    reader keeps up with a tick rate runs the rate (and what it expects of it) this many times
//    slower, so "keeps up" still means the same; a test that waits for simulated time to pass waits
//    this many times longer. Each sanitizer preset scales every test's timeout by the same factor.
// The sanitizer presets define WATCHFLOOR_ASAN_BUILD / WATCHFLOOR_TSAN_BUILD (cmake/Sanitizers.cmake:
// clang 14 does not define __SANITIZE_ADDRESS__, and the TSan build removes __SANITIZE_THREAD__ so
// protobuf's headers match Debian's uninstrumented library).

namespace watchfloor::testing {

#if defined(WATCHFLOOR_TSAN_BUILD)
inline constexpr bool kRssBoundsHold = false;
#else
inline constexpr bool kRssBoundsHold = true;
#endif

#if defined(WATCHFLOOR_TSAN_BUILD)
inline constexpr int kSanitizerSlowdown = 5;
#elif defined(WATCHFLOOR_ASAN_BUILD)
inline constexpr int kSanitizerSlowdown = 3;
#else
inline constexpr int kSanitizerSlowdown = 1;
#endif

}  // namespace watchfloor::testing
