#pragma once
// Whether this build runs under a sanitizer that changes memory use: ASan keeps freed memory in
// quarantine and both ASan and TSan add shadow memory, so a test's RSS bounds say nothing there
// (the sanitizer's own leak and race reports do that job instead).

namespace watchfloor::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kRssBoundsHold = false;
#else
inline constexpr bool kRssBoundsHold = true;
#endif

}  // namespace watchfloor::testing
