# libFuzzer targets for every parser of input a user or a network hands
# rooftop (tests/fuzz/*_fuzz.cpp; the ONNX importer's is fuzz.cmake). Each
# fuzz_<name> is built with clang -fsanitize=fuzzer,address,undefined against
# clang-built archives of the modules it reads (objects compiled once, through
# ccache when there is one: GCC's objects carry no libFuzzer coverage), and
# run by tests/fuzz/run.sh as the ctest `fuzz_<name>` (label slow) for a fixed
# time, seeded with tests/fuzz/corpus/<name>/. Not part of the default build:
# `make slow` builds the `fuzzers` target first. Without clang's libFuzzer
# runtime (Debian: libclang-rt-14-dev) each test says so and passes.
find_program(ROOFTOP_CLANGXX NAMES clang++-14 clang++)
set(fuzz_ok OFF)
if(ROOFTOP_CLANGXX)
  execute_process(COMMAND ${ROOFTOP_CLANGXX} -print-runtime-dir
                  OUTPUT_VARIABLE clang_rt_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(EXISTS "${clang_rt_dir}/libclang_rt.fuzzer-x86_64.a" OR EXISTS "${clang_rt_dir}/libclang_rt.fuzzer.a")
    set(fuzz_ok ON)
  endif()
endif()

set(fuzz_dir ${CMAKE_BINARY_DIR}/fuzz-lib)
set(fuzz_cxx ${ROOFTOP_CCACHE} ${ROOFTOP_CLANGXX} -std=c++20 -O1 -g -fno-omit-frame-pointer
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -I${CMAKE_SOURCE_DIR}/src)

# fuzz_archive(MODULE FILE...): ${fuzz_dir}/lib<MODULE>.a from the given
# files (paths relative to the source tree, or absolute), each compiled with
# coverage instrumentation; the header dependencies come from clang's depfile.
function(fuzz_archive module)
  set(objs "")
  foreach(f IN LISTS ARGN)
    if(IS_ABSOLUTE ${f})
      set(src ${f})
    else()
      set(src ${CMAKE_SOURCE_DIR}/${f})
    endif()
    get_filename_component(stem ${src} NAME_WE)
    set(obj ${fuzz_dir}/${module}/${stem}.o)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${fuzz_cxx} -fsanitize=fuzzer-no-link -MD -MF ${obj}.d -c ${src} -o ${obj}
      DEPENDS ${src}
      DEPFILE ${obj}.d
      COMMENT "fuzz: compiling ${f} with clang (libFuzzer coverage, ASan, UBSan)"
      VERBATIM)
    list(APPEND objs ${obj})
  endforeach()
  add_custom_command(OUTPUT ${fuzz_dir}/lib${module}.a
    COMMAND ${CMAKE_COMMAND} -E rm -f ${fuzz_dir}/lib${module}.a
    COMMAND ${CMAKE_AR} qc ${fuzz_dir}/lib${module}.a ${objs}
    COMMAND ${CMAKE_RANLIB} ${fuzz_dir}/lib${module}.a
    DEPENDS ${objs}
    VERBATIM)
endfunction()

# fuzz_target(NAME MODULES module... LIBS lib...): the fuzzer
# build/fuzz_<NAME> from tests/fuzz/<NAME>_fuzz.cpp (when clang's libFuzzer
# is there), and its slow test (always: run.sh says when it is not built).
function(fuzz_target name)
  cmake_parse_arguments(F "" "" "MODULES;LIBS" ${ARGN})
  add_test(NAME fuzz_${name} COMMAND bash ${CMAKE_SOURCE_DIR}/tests/fuzz/run.sh ${name})
  set_tests_properties(fuzz_${name} PROPERTIES LABELS "fuzz;slow" TIMEOUT 240
    ENVIRONMENT "SRC=${CMAKE_SOURCE_DIR};BUILD=${CMAKE_BINARY_DIR};WORK=${CMAKE_BINARY_DIR}/fuzz-work/${name}")
  if(NOT fuzz_ok)
    return()
  endif()
  set(out ${CMAKE_BINARY_DIR}/fuzz_${name})
  set(src ${CMAKE_SOURCE_DIR}/tests/fuzz/${name}_fuzz.cpp)
  set(archives "")
  foreach(m IN LISTS F_MODULES)
    list(APPEND archives ${fuzz_dir}/lib${m}.a)
  endforeach()
  set(libs "")
  foreach(l IN LISTS F_LIBS)
    list(APPEND libs -l${l})
  endforeach()
  add_custom_command(OUTPUT ${out}
    COMMAND ${fuzz_cxx} -fsanitize=fuzzer -MD -MF ${out}.d ${src} -o ${out}
            -Wl,--start-group ${archives} -Wl,--end-group ${libs} -lfmt -lpthread
    DEPENDS ${src} ${archives}
    DEPFILE ${out}.d
    COMMENT "fuzz: linking fuzz_${name}"
    VERBATIM)
  add_custom_target(fuzz_${name} DEPENDS ${out})
  add_dependencies(fuzzers fuzz_${name})
endfunction()

if(fuzz_ok)
  add_custom_target(fuzzers)
  if(TARGET fuzz_onnx_import)
    add_dependencies(fuzzers fuzz_onnx_import)
  endif()
  file(MAKE_DIRECTORY ${fuzz_dir})
  fuzz_archive(core src/core/text.cpp src/core/yaml.cpp src/core/precision.cpp src/core/dynlib.cpp)
  fuzz_archive(embedded src/embedded/embedded.cpp ${CMAKE_BINARY_DIR}/src/embedded/embedded_data.cpp)
  fuzz_archive(catalog src/catalog/catalog.cpp src/catalog/parse.cpp src/catalog/match_name.cpp)
  file(GLOB workload_srcs RELATIVE ${CMAKE_SOURCE_DIR} CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/workload/*.cpp)
  fuzz_archive(workload ${workload_srcs})
  file(GLOB model_srcs RELATIVE ${CMAKE_SOURCE_DIR} CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/model/*.cpp)
  fuzz_archive(model ${model_srcs})
  fuzz_archive(advise src/advise/scenario.cpp)
  fuzz_archive(telemetry src/telemetry/http_request.cpp src/telemetry/webconfig.cpp src/telemetry/trace.cpp
               src/telemetry/podresources.cpp)
  fuzz_archive(analyze src/analyze/http.cpp src/analyze/prometheus_json.cpp src/analyze/source_openmetrics.cpp
               src/analyze/profile.cpp)

else()
  message(STATUS "rooftop: clang++ with libFuzzer not found; the parsers' fuzz targets are not built")
endif()

fuzz_target(http_request MODULES telemetry core)
fuzz_target(web_config MODULES telemetry core LIBS yaml-cpp crypt)
fuzz_target(catalog_entry MODULES catalog embedded core LIBS yaml-cpp)
fuzz_target(catalog_overlay MODULES catalog embedded core LIBS yaml-cpp)
fuzz_target(scenario MODULES advise catalog workload embedded core LIBS yaml-cpp)
fuzz_target(model_yaml MODULES workload embedded core LIBS yaml-cpp)
fuzz_target(measurements_csv MODULES model catalog workload embedded core LIBS yaml-cpp)
fuzz_target(trace_csv MODULES telemetry core LIBS yaml-cpp)
fuzz_target(model_tables MODULES model catalog workload embedded core LIBS yaml-cpp)
fuzz_target(prometheus_json MODULES analyze core)
fuzz_target(openmetrics MODULES analyze core)
fuzz_target(pod_resources MODULES telemetry core LIBS dl)
