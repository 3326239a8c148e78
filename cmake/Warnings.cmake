# Warnings on for our own targets only (generated protobuf code is not ours to fix).
# WATCHFLOOR_WERROR=ON makes them errors, so a warning cannot land unnoticed; off by default, as
# a newer compiler than Debian 12's GCC 12 or clang 14 may warn where these do not.
option(WATCHFLOOR_WERROR "Treat the warnings of our own targets as errors (-Werror)" OFF)
function(watchfloor_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic $<$<BOOL:${WATCHFLOOR_WERROR}>:-Werror>)
endfunction()
