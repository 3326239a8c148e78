# Every CTest test of the project is registered here, with a timeout so a hang fails, the
# environment the tests rely on, and the part it tests (tests/<part>/...) as the label
# "part:<part>", so a run can pick parts: the sanitizer step of scripts/test runs
# -L 'part:(server|client)'.
# A ThreadSanitizer build runs 5-15 times slower, an AddressSanitizer one 2-3 times: their presets
# scale every test's TIMEOUT by WATCHFLOOR_TEST_TIMEOUT_SCALE (5 and 3, as testbeds/SanitizerBuild.h
# scales in-test waits), so a timeout there still means a hang, not the sanitizer's cost.
set(WATCHFLOOR_TEST_TIMEOUT_SCALE 1 CACHE STRING "Multiplies every test's TIMEOUT (sanitizer builds)")
function(_watchfloor_register_test name timeout labels)
  math(EXPR timeout "${timeout} * ${WATCHFLOOR_TEST_TIMEOUT_SCALE}")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES
    TIMEOUT ${timeout}
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;FLEETD_BIN=${PROJECT_BINARY_DIR}/server/fleetd/fleetd;WATCHFLOOR_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  watchfloor_part_label(part)
  set_tests_properties(${name} PROPERTIES LABELS "${labels};part:${part}")
endfunction()

# watchfloor_part_label(VAR): the part (first folder under tests/) of the calling CMakeLists.
function(watchfloor_part_label out)
  file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR}/tests ${CMAKE_CURRENT_SOURCE_DIR})
  string(REGEX REPLACE "/.*" "" part "${relative}")
  set(${out} ${part} PARENT_SCOPE)
endfunction()

# One test executable, built with our warnings and registered (both functions below).
function(_watchfloor_test_executable prefix)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${prefix} ${T_LIBS})
  watchfloor_warnings(${T_NAME})
  _watchfloor_register_test(${T_NAME} ${T_TIMEOUT} "${T_LABELS}")
  set(_wf_test ${T_NAME} PARENT_SCOPE)
endfunction()

# watchfloor_add_test(NAME name SOURCES a.cpp ... LIBS lib ... [TIMEOUT s] [LABELS l ...])
# A Qt Test executable run by CTest, offscreen (default timeout 120 s).
function(watchfloor_add_test)
  _watchfloor_test_executable(Qt6::Test ${ARGN})
endfunction()

# watchfloor_add_plain_test(NAME name SOURCES a.cpp ... LIBS lib ... [TIMEOUT s] [LABELS l ...])
# A test without Qt (a main() that exits non-zero on the first failed check), for what a
# server-only build (WATCHFLOOR_CONSOLE=OFF) must still test.
function(watchfloor_add_plain_test)
  _watchfloor_test_executable(Threads::Threads ${ARGN})
  # The console build turns AUTOMOC on for every target; a plain test has nothing for moc.
  set_target_properties(${_wf_test} PROPERTIES AUTOMOC OFF)
endfunction()

# watchfloor_add_script_test(NAME name COMMAND prog args... [TIMEOUT s] [LABELS l ...]):
# a test that runs a script of the tree (packaging, install and build checks).
function(watchfloor_add_script_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${WATCHFLOOR_TEST_TIMEOUT_SCALE}")
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  watchfloor_part_label(part)
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS};part:${part}"
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;WATCHFLOOR_SOURCE_DIR=${PROJECT_SOURCE_DIR};WATCHFLOOR_BUILD_DIR=${PROJECT_BINARY_DIR}")
endfunction()
