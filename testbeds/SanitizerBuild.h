#pragma once
// What a sanitizer build changes for tests that measure:
//  - memory: ASan keeps freed memory in quarantine and both ASan and TSan add shadow memory, so a
//    test's RSS bounds say nothing there (the sanitizer's own leak and race reports do that job);
//  - speed: TSan runs our code 5-15 times slower. A test that checks a reader keeps up with a
//    tick rate runs the rate (and what it expects of it) this many times slower, so "keeps up"
//    still means the same; the TSan preset scales every test's timeout by the same 5.
// The TSan preset defines WATCHFLOOR_TSAN_BUILD (cmake/Sanitizers.cmake removes
// __SANITIZE_THREAD__ so protobuf's headers match Debian's uninstrumented library).

namespace watchfloor::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(WATCHFLOOR_TSAN_BUILD)
inline constexpr bool kRssBoundsHold = false;
#else
inline constexpr bool kRssBoundsHold = true;
#endif

#if defined(WATCHFLOOR_TSAN_BUILD)
inline constexpr int kSanitizerSlowdown = 5;
#else
inline constexpr int kSanitizerSlowdown = 1;
#endif

}  // namespace watchfloor::testing
