# Debian packages with CPack, one per install component (cmake/Install.cmake):
#   fleetd      the service; Depends from dpkg-shlibdeps on fleetd alone, so no Qt
#   watchfloor  the console (Qt 6); Depends from dpkg-shlibdeps on watchfloor
# Packaged from any build of the tree (scripts/package builds the two programs and runs cpack);
# the packages always install under /usr, whatever CMAKE_INSTALL_PREFIX the build has.
# tests/build/check-packages installs both .deb files with dpkg -x and runs them from there, and
# holds them to Debian's own checks: lintian (no error, no warning) and desktop-file-validate.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME watchfloor)
set(CPACK_PACKAGE_VENDOR "Watchfloor")
# The Maintainer field: a name and an address that takes mail (lintian rejects a host such as
# localhost). The default is the project's address in the domain reserved for examples; a site
# that builds its own packages sets its own: cmake -DWATCHFLOOR_PACKAGE_MAINTAINER="Name <a@b.c>".
set(WATCHFLOOR_PACKAGE_MAINTAINER "Watchfloor maintainers <watchfloor@example.org>" CACHE STRING
  "Maintainer field of the Debian packages: Name <address>")
set(CPACK_PACKAGE_CONTACT "${WATCHFLOOR_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
# Install with DESTDIR=staging and the prefix /usr itself, so the unit written at install time
# (cmake/InstallFleetdUnit.cmake) names /usr/sbin/fleetd and /etc/default/fleetd.
set(CPACK_SET_DESTDIR ON)
# Stripped (any build type, RelWithDebInfo by default): no separate -dbgsym packages; debug a
# packaged fleetd with the build tree it came from.
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
# Both binary packages come from one source, whose changelog (packaging/debian/changelog, installed
# as share/doc/PACKAGE/changelog.gz) names it watchfloor. The version has no Debian revision: the
# packaging is part of the tree (a native package, hence changelog.gz, not changelog.Debian.gz).
set(CPACK_DEBIAN_PACKAGE_SOURCE watchfloor)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_FLEETD_PACKAGE_NAME fleetd)
set(CPACK_DEBIAN_FLEETD_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_WATCHFLOOR_PACKAGE_NAME watchfloor)
set(CPACK_DEBIAN_WATCHFLOOR_PACKAGE_SECTION x11)
# Qt loads the SVG icons through plugins (imageformats/libqsvg, iconengines/libqsvgicon) that
# dpkg-shlibdeps cannot see in watchfloor's NEEDED entries; CPack adds shlibdeps' list to this.
set(CPACK_DEBIAN_WATCHFLOOR_PACKAGE_DEPENDS "libqt6svg6")
# Description: the synopsis (not starting with the package's name), then the extended text as
# lines of at most 80 characters; one string (a CMake list would join its items with ";").
set(CPACK_COMPONENT_FLEETD_DESCRIPTION "gRPC fleet service for NVL72 GPU training racks
The Watchfloor fleet service serves topology, DCGM-aligned telemetry, events,
jobs, goodput and operator actions over gRPC, from a built-in digital twin or
from a real site's Prometheus, exporters, Redfish and Slurm.
It comes with a hardened systemd unit (Type=notify, DynamicUser).")
set(CPACK_COMPONENT_WATCHFLOOR_DESCRIPTION "Qt 6 console for NVL72 GPU training fleets
The Watchfloor console shows rack maps, liquid-cooling and link health, live
goodput, incidents and operator actions, for NOC workstations and war-room
wall displays. It connects to one or more fleetd services.")
# The EnvironmentFile is the site's configuration: an upgrade keeps a changed copy.
# (CPack takes control files by name: this one must be called conffiles.)
file(WRITE ${PROJECT_BINARY_DIR}/packaging/fleetd/conffiles "/etc/default/fleetd\n")
set(CPACK_DEBIAN_FLEETD_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/packaging/fleetd/conffiles)
include(CPack)
