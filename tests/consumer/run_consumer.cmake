# SPDX-License-Identifier: Apache-2.0
# Configures and builds tests/consumer/project, a project that uses tinyldp, in a fresh
# directory with the enclosing build's generator, compilers or toolchain file, build type and
# flags; on the host it also runs it. `cmake -P` script; the variables (-D...):
#   MODE          subdirectory | fetchcontent | package | port (an out-of-tree port running the
#                 installed conformance suites: tests/consumer/port_project)
#   WORK_DIR      scratch directory (wiped first)
#   SOURCE_DIR    tinyldp's source tree;  TINYLDP_BUILD  the enclosing build (MODE package)
#   GENERATOR, MAKE_PROGRAM, TOOLCHAIN_FILE, C_COMPILER, CXX_COMPILER, BUILD_TYPE,
#   C_FLAGS, CXX_FLAGS, EXE_LINKER_FLAGS   the enclosing build's
#   RUN           ON to run the program (host builds)
# MODE package installs the enclosing build (cmake --install --prefix), moves the installed
# tree elsewhere (the package must be relocatable) and finds it there; on the host it also
# compiles the program with the flags of the installed pkg-config files.
# Every mode checks that only tinyldp's libraries joined the consumer's build.
cmake_minimum_required(VERSION 3.25)

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(build ${WORK_DIR}/build)
set(options -G ${GENERATOR} -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}
  -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DTINYLDP_CONSUME=${MODE} -DTINYLDP_SOURCE_DIR=${SOURCE_DIR})
# The source builds compile the device libraries only (the host preset compiles everything, at
# the same flags; compiling the collector again here took 100-180 s a test):
#  - fetchcontent: a device-only consumer (firmware, or a Linux gateway that only reports),
#    TINYLDP_BUILD_COLLECTOR=OFF: the collector is not even configured;
#  - subdirectory: the collector is configured as a subproject (where the build is native: its
#    targets, include directories and packages must resolve from another project's tree), and
#    the consumer's own targets are built without it. The package mode links and runs the
#    installed collector.
set(targets "")
if(MODE STREQUAL "fetchcontent")
  list(APPEND options -DTINYLDP_BUILD_COLLECTOR=OFF)
elseif(MODE STREQUAL "subdirectory")
  list(APPEND options -DCONSUMER_LINK_COLLECTOR=OFF)
  set(targets --target consumer consumer_c)
endif()
if(TOOLCHAIN_FILE)
  list(APPEND options -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE})
else()
  list(APPEND options -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    "-DCMAKE_C_FLAGS=${C_FLAGS}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}")
endif()

set(project_dir ${CMAKE_CURRENT_LIST_DIR}/project)
set(program consumer)
if(MODE STREQUAL "port")
  set(project_dir ${CMAKE_CURRENT_LIST_DIR}/port_project)
  set(program port_conformance)
endif()
if(MODE STREQUAL "package" OR MODE STREQUAL "port")
  step("cmake --install" ${CMAKE_COMMAND} --install ${TINYLDP_BUILD} --prefix ${WORK_DIR}/staged)
  file(RENAME ${WORK_DIR}/staged ${WORK_DIR}/prefix)
  set(prefix ${WORK_DIR}/prefix)
  foreach(file lib/cmake/tinyldp/tinyldp-config.cmake lib/cmake/tinyldp/tinyldp-config-version.cmake
      lib/pkgconfig/tinyldp.pc include/tinyldp/version.hpp include/tinyldp/rr.hpp
      include/tinyldp/port/entropy/chacha20_drbg.hpp lib/libtinyldp_port_chacha20_drbg.a
      include/tinyldp.h include/tinyldp/entropy.h lib/libtinyldp_c.a lib/pkgconfig/tinyldp-c.pc
      include/tinyldp/port/test/entropy_conformance.hpp)
    if(NOT EXISTS ${prefix}/${file})
      message(FATAL_ERROR "not installed: ${file}")
    endif()
  endforeach()
  # The tinyldp command, when the build has it: installed, and runs from the moved prefix.
  if(EXISTS ${TINYLDP_BUILD}/tools/tinyldp/tinyldp)
    step("the installed tinyldp command" ${prefix}/bin/tinyldp --version)
    if(NOT step_output MATCHES "^tinyldp [0-9]+\\.[0-9]+\\.[0-9]+")
      message(FATAL_ERROR "the installed tinyldp --version printed: ${step_output}")
    endif()
  endif()
  list(APPEND options -DCMAKE_PREFIX_PATH=${prefix})
endif()

step("configuring the consumer" ${CMAKE_COMMAND} -S ${project_dir} -B ${build}
  ${options} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
step("building the consumer" ${CMAKE_COMMAND} --build ${build} --parallel 2 ${targets})

# tinyldp's sources, where the consumer compiles them, get its warnings but not -Werror (that
# is TINYLDP_WERROR, for tinyldp's own builds): another compiler or build type may warn where
# tinyldp's CI does not, and must not stop the consumer's build.
file(READ ${build}/compile_commands.json commands)
string(JSON count LENGTH "${commands}")
set(compiled 0)
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON source GET "${commands}" ${i} file)
    string(JSON command GET "${commands}" ${i} command)
    file(TO_CMAKE_PATH "${source}" source)
    if(source MATCHES "^${SOURCE_DIR}/(lib|port|c|collector)/")
      math(EXPR compiled "${compiled} + 1")
      if(command MATCHES "-Werror")
        message(FATAL_ERROR "the consumer's build compiles ${source} with -Werror:\n${command}")
      endif()
      if(NOT command MATCHES "-Wall")
        message(FATAL_ERROR "the consumer's build compiles ${source} without tinyldp's warnings:\n${command}")
      endif()
    endif()
  endforeach()
endif()
if(MODE STREQUAL "subdirectory" OR MODE STREQUAL "fetchcontent")
  if(compiled EQUAL 0)
    message(FATAL_ERROR "no tinyldp source in the consumer's compile_commands.json")
  endif()
  message(STATUS "${compiled} of tinyldp's sources compiled with its warnings, without -Werror")
endif()

# What was built: one <target>.dir per target with sources. Only the consumer and tinyldp's
# libraries (the gate among them) may be there (no tests, examples, benchmarks, tools or board code).
file(GLOB_RECURSE target_dirs LIST_DIRECTORIES true RELATIVE ${build} ${build}/*.dir)
set(built "")
foreach(dir IN LISTS target_dirs)
  if(NOT dir MATCHES "CMakeFiles/CMake|CMakeTmp|-subbuild/" AND dir MATCHES "CMakeFiles/([^/]+)\\.dir$")
    list(APPEND built ${CMAKE_MATCH_1})
  endif()
endforeach()
list(SORT built)
foreach(target IN LISTS built)
  if(NOT target MATCHES "^(consumer|consumer_c|port_conformance|tinyldp_port_[a-z0-9_]+|tinyldp_c|tinyldp_collector|tinyldp_gate)$")
    message(FATAL_ERROR "${target} joined the consumer's build (built: ${built})")
  endif()
endforeach()
message(STATUS "built: ${built}")
if(MODE STREQUAL "fetchcontent" AND "tinyldp_collector" IN_LIST built)
  message(FATAL_ERROR "TINYLDP_BUILD_COLLECTOR=OFF, and the collector was configured (targets: ${built})")
endif()
if(MODE STREQUAL "subdirectory" AND RUN AND NOT "tinyldp_collector" IN_LIST built)
  message(FATAL_ERROR "the collector did not configure as a subproject (targets: ${built})")
endif()
if(MODE STREQUAL "subdirectory")
  file(GLOB_RECURSE collector_objects LIST_DIRECTORIES false ${build}/*.o)
  list(FILTER collector_objects INCLUDE REGEX "/tinyldp_collector\\.dir/")
  if(collector_objects)
    message(FATAL_ERROR "the consumer's build compiled the collector: ${collector_objects}")
  endif()
endif()

if(RUN)
  step("running ${program}" ${build}/${program})
  message(STATUS "${step_output}")
  if(EXISTS ${build}/consumer_c)
    step("running consumer_c" ${build}/consumer_c)
    message(STATUS "${step_output}")
  endif()
  if(MODE STREQUAL "package")
    # pkg-config: the same program from the flags of tinyldp.pc and tinyldp-collector.pc.
    find_program(PKG_CONFIG pkg-config REQUIRED)
    set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
    step("pkg-config" ${PKG_CONFIG} --cflags --libs tinyldp-collector)
    string(STRIP "${step_output}" pc_flags)
    separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
    separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS}")
    separate_arguments(ld_flags UNIX_COMMAND "${EXE_LINKER_FLAGS}")
    step("compiling with pkg-config's flags" ${CXX_COMPILER} ${cxx_flags}
      -DTINYLDP_ALLOW_INSECURE_TEST_ENTROPY -DCONSUMER_WITH_COLLECTOR
      ${CMAKE_CURRENT_LIST_DIR}/project/main.cpp -o ${WORK_DIR}/consumer_pkg_config
      ${pc_flags} ${ld_flags})
    step("running the pkg-config build" ${WORK_DIR}/consumer_pkg_config)
    message(STATUS "pkg-config (${pc_flags}): ${step_output}")
  endif()
endif()
