# Install-time part of cmake/Install.cmake (component fleetd): writes the systemd unit for the
# prefix being installed to, and its EnvironmentFile where that prefix's configuration lives
# (/etc for /usr, as GNUInstallDirs puts it; PREFIX/etc otherwise). Inputs, set by the caller:
# WATCHFLOOR_UNIT_TEMPLATE, WATCHFLOOR_UNIT_DEFAULTS, WATCHFLOOR_SBINDIR.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(_wf_etc /etc)
else()
  set(_wf_etc ${CMAKE_INSTALL_PREFIX}/etc)
endif()
set(FLEETD_INSTALLED_BIN ${CMAKE_INSTALL_PREFIX}/${WATCHFLOOR_SBINDIR}/fleetd)
set(FLEETD_ENVIRONMENT_FILE ${_wf_etc}/default/fleetd)
set(_wf_unit_dir $ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
message(STATUS "Installing: ${_wf_unit_dir}/fleetd.service")
configure_file(${WATCHFLOOR_UNIT_TEMPLATE} ${_wf_unit_dir}/fleetd.service @ONLY)
file(INSTALL ${WATCHFLOOR_UNIT_DEFAULTS} DESTINATION $ENV{DESTDIR}${_wf_etc}/default RENAME fleetd)
