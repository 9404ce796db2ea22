# SPDX-License-Identifier: Apache-2.0
# Install rules: headers, the libraries (the C API's among them), a relocatable and versioned CMake package and
# pkg-config files. After `cmake --install <build> --prefix <dir>`:
#   find_package(tinyldp 0.1 CONFIG REQUIRED COMPONENTS core ports collector)
# gives the same targets as the build tree (tinyldp::tinyldp, tinyldp::port_<name>,
# tinyldp::c, tinyldp::collector), with the same usage requirements. Components: core (always),
# ports, c (the C API; loads ports), collector (host builds).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TINYLDP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tinyldp CACHE STRING
  "where the CMake package files are installed, relative to the prefix")

# core: the headers and the version header generated from project().
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/ ${PROJECT_BINARY_DIR}/lib/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(components "")
# A component of the package: its targets, exported as tinyldp::<name> in
# tinyldp-<component>-targets.cmake, and its name in the list the package config checks.
function(tinyldp_install_component component)
  install(TARGETS ${ARGN} EXPORT tinyldp-${component}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT tinyldp-${component} NAMESPACE tinyldp:: FILE tinyldp-${component}-targets.cmake
    DESTINATION ${TINYLDP_INSTALL_CMAKEDIR})
  set(components ${components} ${component} PARENT_SCOPE)
endfunction()
tinyldp_install_component(core tinyldp)

# ports: every port this toolchain builds (host-only ones only on the host).
get_property(ports GLOBAL PROPERTY TINYLDP_PORTS)
get_property(port_include_dirs GLOBAL PROPERTY TINYLDP_PORT_INCLUDE_DIRS)
foreach(dir IN LISTS port_include_dirs)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
tinyldp_install_component(ports ${ports})

# c: the C API (tinyldp.h, tinyldp::c) over the core and the DRBG and health-test ports.
install(FILES ${PROJECT_SOURCE_DIR}/c/include/tinyldp.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
tinyldp_install_component(c tinyldp_c)

# collector (host).
if(TARGET tinyldp_collector)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/collector/include/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  tinyldp_install_component(collector tinyldp_collector)
endif()

# The package: config (components), version (0.x: the same minor version only).
set(TINYLDP_COMPONENTS ${components})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tinyldp-config.cmake.in
  ${PROJECT_BINARY_DIR}/package/tinyldp-config.cmake
  INSTALL_DESTINATION ${TINYLDP_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/tinyldp-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/tinyldp-config.cmake
  ${PROJECT_BINARY_DIR}/package/tinyldp-config-version.cmake
  DESTINATION ${TINYLDP_INSTALL_CMAKEDIR})

# pkg-config: tinyldp (the core and the compiled ports) and tinyldp-collector. Paths relative
# to the .pc file, so the installed tree can move.
file(RELATIVE_PATH pc_prefix /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" pc_prefix "${pc_prefix}")
set(TINYLDP_PC_PREFIX "\${pcfiledir}/${pc_prefix}")
set(TINYLDP_PC_CFLAGS "")
set(TINYLDP_PC_C_CFLAGS "")
if(CMAKE_SYSTEM_NAME STREQUAL "Generic")
  set(TINYLDP_PC_CFLAGS " -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
  set(TINYLDP_PC_C_CFLAGS " -ffreestanding")
endif()
set(TINYLDP_PC_PORT_LIBS "")
foreach(port IN LISTS ports)
  get_target_property(type ${port} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    string(APPEND TINYLDP_PC_PORT_LIBS " -l${port}")
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/tinyldp.pc.in ${PROJECT_BINARY_DIR}/package/tinyldp.pc
  @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/tinyldp-c.pc.in ${PROJECT_BINARY_DIR}/package/tinyldp-c.pc
  @ONLY)
set(pc_files ${PROJECT_BINARY_DIR}/package/tinyldp.pc ${PROJECT_BINARY_DIR}/package/tinyldp-c.pc)
if(TARGET tinyldp_collector)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/tinyldp-collector.pc.in
    ${PROJECT_BINARY_DIR}/package/tinyldp-collector.pc @ONLY)
  list(APPEND pc_files ${PROJECT_BINARY_DIR}/package/tinyldp-collector.pc)
endif()
install(FILES ${pc_files} DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The toolchain files, usable from the installed tree as they are (with qemu-run beside them).
install(FILES ${PROJECT_SOURCE_DIR}/toolchains/arm-none-eabi.cmake
  ${PROJECT_SOURCE_DIR}/toolchains/bare-metal.cmake ${PROJECT_SOURCE_DIR}/toolchains/cortex-m0.cmake
  ${PROJECT_SOURCE_DIR}/toolchains/cortex-m3.cmake ${PROJECT_SOURCE_DIR}/toolchains/cortex-m4f.cmake
  ${PROJECT_SOURCE_DIR}/toolchains/rv32imac.cmake
  DESTINATION ${CMAKE_INSTALL_DATADIR}/tinyldp/toolchains)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/toolchains/qemu-run
  DESTINATION ${CMAKE_INSTALL_DATADIR}/tinyldp/toolchains)

# The tinyldp command, when built.
if(TARGET tinyldp_cli)
  install(TARGETS tinyldp_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
