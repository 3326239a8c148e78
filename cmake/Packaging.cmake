# Debian packages with CPack, one per install component (cmake/Install.cmake):
#   fleetd      the service; Depends from dpkg-shlibdeps on fleetd alone, so no Qt
#   watchfloor  the console (Qt 6); Depends from dpkg-shlibdeps on watchfloor
# Packaged from any build of the tree (scripts/package builds the two programs and runs cpack);
# the packages always install under /usr, whatever CMAKE_INSTALL_PREFIX the build has.
# tests/build/check-packages installs both .deb files with dpkg -x and runs them from there.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME watchfloor)
set(CPACK_PACKAGE_VENDOR "Watchfloor")
set(CPACK_PACKAGE_CONTACT "Watchfloor maintainers <watchfloor@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
# Install with DESTDIR=staging and the prefix /usr itself, so the unit written at install time
# (cmake/InstallFleetdUnit.cmake) names /usr/sbin/fleetd and /etc/default/fleetd.
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
# Only the two programs' files: `make package` would otherwise build every test first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL fleetd)
if(TARGET watchfloor)
  list(APPEND CPACK_COMPONENTS_ALL watchfloor)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_FLEETD_PACKAGE_NAME fleetd)
set(CPACK_DEBIAN_FLEETD_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_WATCHFLOOR_PACKAGE_NAME watchfloor)
set(CPACK_DEBIAN_WATCHFLOOR_PACKAGE_SECTION x11)
# Qt loads the SVG icons through plugins (imageformats/libqsvg, iconengines/libqsvgicon) that
# dpkg-shlibdeps cannot see in watchfloor's NEEDED entries; CPack adds shlibdeps' list to this.
set(CPACK_DEBIAN_WATCHFLOOR_PACKAGE_DEPENDS "libqt6svg6")
set(CPACK_COMPONENT_FLEETD_DESCRIPTION
  "Watchfloor fleet service (gRPC) for NVL72 GPU training racks\n"
  " fleetd serves topology, DCGM-aligned telemetry, events, jobs, goodput and operator\n"
  " actions over gRPC, from a built-in digital twin or a real site's Prometheus, exporters,\n"
  " Redfish and Slurm. Includes a hardened systemd unit (Type=notify, DynamicUser).")
set(CPACK_COMPONENT_WATCHFLOOR_DESCRIPTION
  "Watchfloor console (Qt 6) for NVL72 GPU training fleets\n"
  " Rack maps, liquid-cooling and link health, live goodput, incidents and operator actions,\n"
  " for NOC workstations and war-room wall displays. Connects to one or more fleetd.")
# The EnvironmentFile is the site's configuration: an upgrade keeps a changed copy.
# (CPack takes control files by name: this one must be called conffiles.)
file(WRITE ${PROJECT_BINARY_DIR}/packaging/fleetd/conffiles "/etc/default/fleetd\n")
set(CPACK_DEBIAN_FLEETD_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/packaging/fleetd/conffiles)
include(CPack)
