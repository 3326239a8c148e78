# Warnings on for our own targets only (generated protobuf code is not ours to fix).
# WATCHFLOOR_WERROR=ON makes them errors, so a warning cannot land unnoticed; off by default, as
# a newer compiler than Debian 12's GCC 12 or clang 14 may warn where these do not.
option(WATCHFLOOR_WERROR "Treat the warnings of our own targets as errors (-Werror)" OFF)
set(WATCHFLOOR_WARNING_FLAGS -Wall -Wextra -Wpedantic $<$<BOOL:${WATCHFLOOR_WERROR}>:-Werror>)
function(watchfloor_warnings target)
  target_compile_options(${target} PRIVATE ${WATCHFLOOR_WARNING_FLAGS})
endfunction()
# The same for the hand-written sources of a target that also compiles generated code.
function(watchfloor_source_warnings)
  set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS "${WATCHFLOOR_WARNING_FLAGS}")
endfunction()
