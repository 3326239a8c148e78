# watchfloor_add_test(NAME name SOURCES a.cpp ... LIBS lib ... [TIMEOUT s] [LABELS l ...])
# Every test is a Qt Test executable run by CTest, offscreen, with a timeout so a hang fails.
function(watchfloor_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE Qt6::Test ${T_LIBS})
  watchfloor_warnings(${T_NAME})
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES
    TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;FLEETD_BIN=${PROJECT_BINARY_DIR}/server/fleetd/fleetd;WATCHFLOOR_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  # Every test also carries the part it tests (tests/<part>/...) as "part:<part>", so a run can
  # pick parts: the sanitizer step of scripts/test runs -L 'part:(server|client)'.
  file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR}/tests ${CMAKE_CURRENT_SOURCE_DIR})
  string(REGEX REPLACE "/.*" "" part "${relative}")
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS};part:${part}")
endfunction()
