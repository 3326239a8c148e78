# Install-time part of cmake/Install.cmake: installs files gzip'd as Debian policy wants man pages
# and changelogs (gzip -9n: best compression, no name or timestamp in the header, so the same
# file gives the same bytes on every install). Inputs, set by the caller:
#   WATCHFLOOR_GZ_FILES        absolute paths of the files, each installed as NAME.gz
#   WATCHFLOOR_GZ_DESTINATION  the folder under the prefix
#   WATCHFLOOR_GZ_STAGING      a folder of the build tree to compress into
foreach(_wf_input WATCHFLOOR_GZ_FILES WATCHFLOOR_GZ_DESTINATION WATCHFLOOR_GZ_STAGING)
  if(NOT ${_wf_input})
    message(FATAL_ERROR "InstallGzipped.cmake: ${_wf_input} is not set (re-run cmake on the build)")
  endif()
endforeach()
find_program(WATCHFLOOR_GZIP gzip REQUIRED)
# One staging folder per destination, so installs running side by side do not share a file.
string(MD5 _wf_id "$ENV{DESTDIR}|${CMAKE_INSTALL_PREFIX}|${WATCHFLOOR_GZ_DESTINATION}")
set(_wf_stage ${WATCHFLOOR_GZ_STAGING}/${_wf_id})
file(MAKE_DIRECTORY ${_wf_stage})
set(_wf_compressed)
foreach(_wf_file IN LISTS WATCHFLOOR_GZ_FILES)
  get_filename_component(_wf_name ${_wf_file} NAME)
  execute_process(COMMAND ${WATCHFLOOR_GZIP} -9n -c ${_wf_file}
    OUTPUT_FILE ${_wf_stage}/${_wf_name}.gz RESULT_VARIABLE _wf_status)
  if(NOT _wf_status EQUAL 0)
    message(FATAL_ERROR "InstallGzipped.cmake: gzip -9n ${_wf_file} failed: ${_wf_status}")
  endif()
  list(APPEND _wf_compressed ${_wf_stage}/${_wf_name}.gz)
endforeach()
# file(INSTALL) adds DESTDIR itself, as the generated install rules do.
file(INSTALL ${_wf_compressed} DESTINATION ${CMAKE_INSTALL_PREFIX}/${WATCHFLOOR_GZ_DESTINATION}
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
