# Install-time part of cmake/Install.cmake (component fleetd): writes the systemd unit for the
# prefix being installed to, and its EnvironmentFile where that prefix's configuration lives
# (/etc for /usr, as GNUInstallDirs puts it; PREFIX/etc otherwise). Inputs, set by the caller:
# WATCHFLOOR_UNIT_TEMPLATE, WATCHFLOOR_UNIT_DEFAULTS, WATCHFLOOR_SBINDIR, WATCHFLOOR_UNIT_STAGING.
foreach(_wf_input WATCHFLOOR_UNIT_TEMPLATE WATCHFLOOR_UNIT_DEFAULTS WATCHFLOOR_SBINDIR WATCHFLOOR_UNIT_STAGING)
  if(NOT ${_wf_input})
    message(FATAL_ERROR "InstallFleetdUnit.cmake: ${_wf_input} is not set (re-run cmake on the build)")
  endif()
endforeach()
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(_wf_etc /etc)
else()
  set(_wf_etc ${CMAKE_INSTALL_PREFIX}/etc)
endif()
set(FLEETD_INSTALLED_BIN ${CMAKE_INSTALL_PREFIX}/${WATCHFLOOR_SBINDIR}/fleetd)
set(FLEETD_ENVIRONMENT_FILE ${_wf_etc}/default/fleetd)
# One staging folder per destination, so installs running side by side do not share a file.
string(MD5 _wf_id "$ENV{DESTDIR}|${CMAKE_INSTALL_PREFIX}")
configure_file(${WATCHFLOOR_UNIT_TEMPLATE} ${WATCHFLOOR_UNIT_STAGING}/${_wf_id}/fleetd.service @ONLY)
# file(INSTALL) adds DESTDIR itself, as the generated install rules do.
file(INSTALL ${WATCHFLOOR_UNIT_STAGING}/${_wf_id}/fleetd.service
  DESTINATION ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
file(INSTALL ${WATCHFLOOR_UNIT_DEFAULTS} DESTINATION ${_wf_etc}/default RENAME fleetd)
