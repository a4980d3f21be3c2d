# Build helpers shared by every module (see STYLE.md).

# Warnings and sanitizers for one of our own targets.
function(rooftop_target_defaults target)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(ROOFTOP_UNITY)
    # Batches of 8 files (CMake's default); the app overrides this (one batch).
    # A file whose file-local names clash with another's in its module sets
    # SKIP_UNITY_BUILD_INCLUSION in its module's CMakeLists.txt.
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON)
  endif()
  if(ROOFTOP_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # GCC 12's flow-sensitive buffer warnings fire on libstdc++'s own
      # std::string code at -O2, depending on how long a path literal is
      # (GCC bugs 105329, 105651): a clone under /check/work/main failed where
      # /tmp/ci passed. They stay warnings, never errors.
      target_compile_options(${target} PRIVATE -Wno-error=array-bounds
        -Wno-error=stringop-overflow -Wno-error=stringop-overread -Wno-error=restrict)
    endif()
  endif()
  if(ROOFTOP_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${ROOFTOP_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=${ROOFTOP_SANITIZE})
  endif()
endfunction()

# rooftop_add_module(NAME DEPS dep... [PUBLIC_LIBS lib...] [SOURCES extra...]
#                    [NO_UNITY file...])
# One static library `rooftop_<NAME>` from every src/<NAME>/*.cpp (and
# src/<NAME>/backends/*.cpp); the include root is src/, so headers are
# included as "<module>/<file>.h". DEPS are other modules (short names).
function(rooftop_add_module name)
  cmake_parse_arguments(M "" "" "DEPS;PUBLIC_LIBS;SOURCES;NO_UNITY" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS
       ${CMAKE_SOURCE_DIR}/src/${name}/*.cpp
       ${CMAKE_SOURCE_DIR}/src/${name}/backends/*.cpp)
  list(APPEND srcs ${M_SOURCES})
  add_library(rooftop_${name} STATIC ${srcs})
  # Position-independent, so the Python module (python/) links the same
  # libraries as the binary.
  set_target_properties(rooftop_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(rooftop_${name} PUBLIC ${CMAKE_SOURCE_DIR}/src)
  foreach(d IN LISTS M_DEPS)
    target_link_libraries(rooftop_${name} PUBLIC rooftop_${d})
  endforeach()
  if(M_PUBLIC_LIBS)
    target_link_libraries(rooftop_${name} PUBLIC ${M_PUBLIC_LIBS})
  endif()
  rooftop_target_defaults(rooftop_${name})
  # NO_UNITY: files (relative to src/<NAME>) compiled on their own in a unity
  # build, because their file-local names repeat another file's.
  foreach(f IN LISTS M_NO_UNITY)
    set_source_files_properties(${CMAKE_SOURCE_DIR}/src/${name}/${f} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endforeach()
endfunction()

# rooftop_test_pch(TARGET): the test binaries share one precompiled header
# (GoogleTest, GoogleMock, nlohmann::json and the standard headers the tests
# use), built once for the first test target and reused by the others (same
# flags, so GCC accepts it; it falls back to parsing when it cannot).
function(rooftop_test_pch target)
  if(NOT ROOFTOP_PCH)
    return()
  endif()
  get_property(owner GLOBAL PROPERTY ROOFTOP_TEST_PCH_OWNER)
  if(owner)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  else()
    target_precompile_headers(${target} PRIVATE
      <gtest/gtest.h> <gmock/gmock.h> <nlohmann/json.hpp>
      <algorithm> <cmath> <filesystem> <fstream> <map> <memory> <optional> <set> <sstream> <string>
      <string_view> <vector>)
    set_property(GLOBAL PROPERTY ROOFTOP_TEST_PCH_OWNER ${target})
  endif()
endfunction()

# rooftop_add_test(MODULE LIBS lib... [LABELS l...])
# One GoogleTest binary `unit_<MODULE>` from tests/unit/<MODULE>/*_test.cpp,
# each test registered with ctest (gtest_discover_tests).
function(rooftop_add_unit_tests module)
  cmake_parse_arguments(T "" "" "LIBS;LABELS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/${module}/*.cpp)
  if(NOT srcs)
    return()
  endif()
  add_executable(unit_${module} ${srcs})
  target_link_libraries(unit_${module} PRIVATE ${T_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  rooftop_test_pch(unit_${module})
  target_include_directories(unit_${module} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests)
  target_compile_definitions(unit_${module} PRIVATE
    ROOFTOP_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    ROOFTOP_BINARY_DIR="${CMAKE_BINARY_DIR}")
  rooftop_target_defaults(unit_${module})
  include(GoogleTest)
  gtest_discover_tests(unit_${module} DISCOVERY_TIMEOUT 60 TEST_LIST unit_${module}_TESTS)
  # Labels (unit, the module, extras) are set by a script that ctest reads
  # after the discovered tests: passed through gtest_discover_tests'
  # PROPERTIES, a list of labels is split into separate properties and only
  # the first label survives.
  set(labels_script ${CMAKE_CURRENT_BINARY_DIR}/unit_${module}_labels.cmake)
  file(WRITE ${labels_script}
    "if(unit_${module}_TESTS)\n"
    "  set_tests_properties(\${unit_${module}_TESTS} PROPERTIES LABELS \"unit;${module};${T_LABELS}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${labels_script})
endfunction()

# rooftop_add_e2e(NAME SCRIPT [LABELS l...]): a shell script under tests/e2e,
# run with ROOFTOP=<binary>, SRC=<source dir>, WORK=<scratch dir>.
function(rooftop_add_e2e name script)
  cmake_parse_arguments(E "" "TIMEOUT" "LABELS" ${ARGN})
  if(NOT E_TIMEOUT)
    set(E_TIMEOUT 300)
  endif()
  add_test(NAME e2e_${name}
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/${script})
  set_tests_properties(e2e_${name} PROPERTIES
    LABELS "e2e;${E_LABELS}"
    TIMEOUT ${E_TIMEOUT}
    ENVIRONMENT "ROOFTOP=$<TARGET_FILE:rooftop>;SRC=${CMAKE_SOURCE_DIR};BUILD=${CMAKE_BINARY_DIR};WORK=${CMAKE_BINARY_DIR}/e2e-work/${name}")
endfunction()

# A fake vendor library (tests/fake_*): a shared library named like the
# vendor's, built into build/<dir> so tests can put that folder on the loader
# path, and built along with the binary that dlopens it.
function(rooftop_fake_library target source output dir)
  add_library(${target} SHARED ${source})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${output}
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${dir})
  if(ARGC GREATER 4)
    set_target_properties(${target} PROPERTIES SOVERSION ${ARGV4})
  endif()
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  rooftop_target_defaults(${target})
  if(TARGET rooftop)
    add_dependencies(rooftop ${target})
  endif()
endfunction()
