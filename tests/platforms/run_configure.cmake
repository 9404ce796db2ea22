# SPDX-License-Identifier: Apache-2.0
# Configures tinyldp from scratch in WORK_DIR for one platform no preset covers and checks what
# the configure output names as left out. `cmake -P` script; -D: MODE (unlisted_bare_metal |
# host_without_gtest | host_without_gtest_required), WORK_DIR, SOURCE_DIR, GENERATOR,
# MAKE_PROGRAM, TOOLCHAIN_DIR (tests/platforms).
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK_DIR})
set(options -S ${SOURCE_DIR} -B ${WORK_DIR} -G ${GENERATOR} -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
if(MODE STREQUAL "unlisted_bare_metal")
  list(APPEND options -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_DIR}/cortex-m33.cmake -DCMAKE_BUILD_TYPE=MinSizeRel)
  # Parts a board-less bare-metal build must name (one of each kind).
  set(expected "test_unary_encoding \\(no board support for TINYLDP_BOARD 'none'"
    "test_c_api \\(no board support" "tinyldp::port_host_os \\(not for this platform\\)"
    "tinyldp::collector, the tinyldp command, the Python bindings \\(a cross build")
  set(must_fail OFF)
else()
  # Without GoogleTest (as on a machine that lacks libgtest-dev): the collector's and the
  # command's GoogleTest programs are named; the core's tests stay.
  list(APPEND options -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
  set(expected "tests/collector: test_report_parser \\(no GoogleTest"
    "tests/tools: test_output \\(no GoogleTest")
  set(must_fail OFF)
  if(MODE STREQUAL "host_without_gtest_required")
    list(APPEND options -DTINYLDP_REQUIRE_ALL=ON)
    set(expected "GoogleTest \\(libgtest-dev\\) not found \\(TINYLDP_REQUIRE_ALL\\)")
    set(must_fail ON)
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${options} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(must_fail AND rc EQUAL 0)
  message(FATAL_ERROR "configure succeeded although a required library is missing:\n${out}")
elseif(NOT must_fail AND NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed (${rc}):\n${out}")
endif()
foreach(pattern IN LISTS expected)
  if(NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "the configure output does not name '${pattern}':\n${out}")
  endif()
endforeach()
if(MODE STREQUAL "unlisted_bare_metal")
  # The libraries build for the unlisted core (nothing else is left to build).
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE build ERROR_VARIABLE build)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the build failed (${rc}):\n${build}")
  endif()
  if(NOT EXISTS ${WORK_DIR}/c/libtinyldp_c.a OR NOT EXISTS ${WORK_DIR}/port/libtinyldp_port_chacha20_drbg.a)
    message(FATAL_ERROR "the libraries were not built:\n${build}")
  endif()
endif()
string(REGEX MATCH "tinyldp: [0-9]+ parts not built[^\n]*" summary "${out}")
message(STATUS "${MODE}: ${summary}")
