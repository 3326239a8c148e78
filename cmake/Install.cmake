# What `cmake --install` puts on a machine, in two components that are also the two Debian
# packages (cmake/Packaging.cmake):
#   fleetd     the service: sbin/fleetd, fleetd(8), the fleet-file and scenario formats (5),
#              the systemd unit and its EnvironmentFile, example fleet and scenario files, the
#              development CA script
#   watchfloor the console: bin/watchfloor, watchfloor(1), the desktop entry and its icon
# Nothing else: the static libraries, tests and benchmarks are build products only (no other
# install() exists in the tree; tests/build/check-install proves the file lists).
include(GNUInstallDirs)

set(WATCHFLOOR_DATA_DIR ${CMAKE_INSTALL_DATADIR}/watchfloor)

if(TARGET fleetd)
  install(TARGETS fleetd RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR} COMPONENT fleetd)
  install(FILES packaging/man/fleetd.8 DESTINATION ${CMAKE_INSTALL_MANDIR}/man8 COMPONENT fleetd)
  install(FILES packaging/man/watchfloor-fleet.5 packaging/man/watchfloor-scenario.5
    DESTINATION ${CMAKE_INSTALL_MANDIR}/man5 COMPONENT fleetd)
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
  install(FILES packaging/man/watchfloor.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT watchfloor)
  install(FILES resources/watchfloor.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications
    COMPONENT watchfloor)
  install(FILES resources/icons/watchfloor.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
    COMPONENT watchfloor)
endif()
