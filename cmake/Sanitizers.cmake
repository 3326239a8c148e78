# WATCHFLOOR_SANITIZE=address,undefined | thread | (empty): one switch that instruments every target
# the project builds (libraries, generated protobuf/gRPC code, fleetd, tests), so a report never
# hides behind an uninstrumented layer of our own. Set it through the presets (CMakePresets.json).
set(WATCHFLOOR_SANITIZE "" CACHE STRING
    "Sanitizers for every target: address,undefined | thread | empty for none")
set_property(CACHE WATCHFLOOR_SANITIZE PROPERTY STRINGS "" "address,undefined" "address" "undefined" "thread")

if(WATCHFLOOR_SANITIZE)
  string(REPLACE "," ";" _wf_sanitizers "${WATCHFLOOR_SANITIZE}")
  foreach(_s IN LISTS _wf_sanitizers)
    if(NOT _s MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "WATCHFLOOR_SANITIZE: unknown sanitizer '${_s}' (address, undefined, thread)")
    endif()
  endforeach()
  # The runtimes cannot share one process: TSan and ASan each own the shadow memory.
  if("thread" IN_LIST _wf_sanitizers AND "address" IN_LIST _wf_sanitizers)
    message(FATAL_ERROR "WATCHFLOOR_SANITIZE: thread cannot be combined with address")
  endif()

  set(_wf_flags -fsanitize=${WATCHFLOOR_SANITIZE} -fno-omit-frame-pointer)
  if("undefined" IN_LIST _wf_sanitizers)
    # Undefined behaviour stops the program, so a test fails at the first report instead of
    # printing it and passing.
    list(APPEND _wf_flags -fno-sanitize-recover=undefined)
  endif()
  if("thread" IN_LIST _wf_sanitizers)
    # Debian's protobuf, gRPC and Qt are built without TSan, and protobuf's map_field.h adds two
    # members to every map field when __SANITIZE_THREAD__ is set: our TSan-built code would then
    # read libprotobuf's maps at the wrong offsets (a google.protobuf.Struct parsed by
    # JsonStringToMessage crashed in Map::find). So the headers are read as those libraries were
    # built, without the macro; libstdc++'s TSan-friendly shared_ptr path is kept by hand, and our
    # own annotations (proto/HappensBefore.h) key on WATCHFLOOR_TSAN_BUILD.
    add_compile_options(-U__SANITIZE_THREAD__ -D_GLIBCXX_TSAN=1 -DWATCHFLOOR_TSAN_BUILD=1)
  endif()
  if("address" IN_LIST _wf_sanitizers)
    # GCC defines __SANITIZE_ADDRESS__ under -fsanitize=address, clang 14 does not: tests key on
    # this instead (testbeds/SanitizerBuild.h).
    add_compile_options(-DWATCHFLOOR_ASAN_BUILD=1)
  endif()
  add_compile_options(${_wf_flags})
  add_link_options(${_wf_flags})
  message(STATUS "Sanitizers: ${WATCHFLOOR_SANITIZE}")
endif()
