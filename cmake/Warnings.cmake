# Warnings on for our own targets only (generated protobuf code is not ours to fix).
function(watchfloor_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
endfunction()
