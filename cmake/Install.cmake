# What `cmake --install` puts on a machine, in two components that are also the two Debian
# packages (cmake/Packaging.cmake):
#   fleetd     the service: sbin/fleetd, fleetd(8), the fleet-file and scenario formats (5),
#              the systemd unit and its EnvironmentFile, example fleet and scenario files, the
#              development CA script
#   watchfloor the console: bin/watchfloor, watchfloor(1), the desktop entry and its icon
# and in each, what Debian policy asks of every package: share/doc/<component>/copyright and
# changelog.gz (packaging/debian/), the man pages gzip -9n'd (cmake/InstallGzipped.cmake).
# Nothing else: the static libraries, tests and benchmarks are build products only (no other
# install() exists in the tree; tests/build/check-install proves the file lists).
include(GNUInstallDirs)

set(WATCHFLOOR_DATA_DIR ${CMAKE_INSTALL_DATADIR}/watchfloor)

# watchfloor_install_gzipped(COMPONENT DESTINATION FILE...): the files (relative to the source
# tree) installed as FILE.gz in DESTINATION, compressed at install time.
function(watchfloor_install_gzipped component destination)
  list(TRANSFORM ARGN PREPEND "${PROJECT_SOURCE_DIR}/")
  install(CODE "set(WATCHFLOOR_GZ_FILES \"${ARGN}\")
set(WATCHFLOOR_GZ_DESTINATION \"${destination}\")
set(WATCHFLOOR_GZ_STAGING \"${PROJECT_BINARY_DIR}/packaging/gz\")
include(\"${CMAKE_CURRENT_FUNCTION_LIST_DIR}/InstallGzipped.cmake\")" COMPONENT ${component})
endfunction()

# share/doc/COMPONENT: the machine-readable copyright file and the Debian changelog.
function(watchfloor_install_doc component)
  install(FILES packaging/debian/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${component}
    COMPONENT ${component})
  watchfloor_install_gzipped(${component} ${CMAKE_INSTALL_DATADIR}/doc/${component}
    packaging/debian/changelog)
endfunction()

if(TARGET fleetd)
  install(TARGETS fleetd RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR} COMPONENT fleetd)
  watchfloor_install_gzipped(fleetd ${CMAKE_INSTALL_MANDIR}/man8 packaging/man/fleetd.8)
  watchfloor_install_gzipped(fleetd ${CMAKE_INSTALL_MANDIR}/man5
    packaging/man/watchfloor-fleet.5 packaging/man/watchfloor-scenario.5)
  watchfloor_install_doc(fleetd)
  install(FILES scenarios/example.fleet scenarios/site.fleet scenarios/redfish.fleet
                scenarios/demo.scn scenarios/redfish-leak.scn
    DESTINATION ${WATCHFLOOR_DATA_DIR}/examples COMPONENT fleetd)
  install(PROGRAMS scripts/dev-ca DESTINATION ${WATCHFLOOR_DATA_DIR} COMPONENT fleetd)

  # The unit names the installed fleetd and its EnvironmentFile by absolute path, so both come
  # from the prefix of the install itself (cmake --install --prefix, CPack's /usr), not from the
  # one configured: cmake/InstallFleetdUnit.cmake runs at install time.
  install(CODE "set(WATCHFLOOR_UNIT_TEMPLATE \"${PROJECT_SOURCE_DIR}/packaging/systemd/fleetd.service.in\")
set(WATCHFLOOR_UNIT_DEFAULTS \"${PROJECT_SOURCE_DIR}/packaging/systemd/fleetd.default\")
set(WATCHFLOOR_SBINDIR \"${CMAKE_INSTALL_SBINDIR}\")
set(WATCHFLOOR_UNIT_STAGING \"${PROJECT_BINARY_DIR}/packaging/unit\")
include(\"${CMAKE_CURRENT_LIST_DIR}/InstallFleetdUnit.cmake\")" COMPONENT fleetd)
endif()

if(TARGET watchfloor)
  install(TARGETS watchfloor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT watchfloor)
  watchfloor_install_gzipped(watchfloor ${CMAKE_INSTALL_MANDIR}/man1 packaging/man/watchfloor.1)
  watchfloor_install_doc(watchfloor)
  install(FILES resources/watchfloor.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications
    COMPONENT watchfloor)
  install(FILES resources/icons/watchfloor.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
    COMPONENT watchfloor)
endif()
