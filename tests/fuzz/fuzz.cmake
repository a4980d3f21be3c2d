# The libFuzzer target for the ONNX importer: fuzz_onnx_import in the build
# folder, compiled with clang -fsanitize=fuzzer,address,undefined straight
# from the importer's sources (the rest of the build may use GCC, whose
# objects carry no libFuzzer coverage). Skipped, with a message, when clang
# or its libFuzzer runtime (Debian: libclang-rt-14-dev) is missing; the ctest
# tests/e2e/onnx_fuzz.sh then says so and passes. Not part of the default
# build: `make check` (make slow) builds it before the `slow` tests run.
find_program(ROOFTOP_CLANGXX NAMES clang++-14 clang++)
set(ROOFTOP_FUZZER "")
if(ROOFTOP_CLANGXX)
  execute_process(COMMAND ${ROOFTOP_CLANGXX} -print-runtime-dir
                  OUTPUT_VARIABLE clang_rt_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(EXISTS "${clang_rt_dir}/libclang_rt.fuzzer-x86_64.a" OR EXISTS "${clang_rt_dir}/libclang_rt.fuzzer.a")
    set(ROOFTOP_FUZZER ${CMAKE_BINARY_DIR}/fuzz_onnx_import)
  endif()
endif()

if(ROOFTOP_FUZZER)
  file(GLOB fuzz_srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/onnx/*.cpp)
  file(GLOB fuzz_hdrs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/onnx/*.h ${CMAKE_SOURCE_DIR}/src/core/*.h
       ${CMAKE_SOURCE_DIR}/src/workload/workload.h)
  list(APPEND fuzz_srcs ${CMAKE_SOURCE_DIR}/src/core/text.cpp ${CMAKE_SOURCE_DIR}/tests/fuzz/onnx_import_fuzz.cpp)
  add_custom_command(
    OUTPUT ${ROOFTOP_FUZZER}
    COMMAND ${ROOFTOP_CLANGXX} -std=c++20 -O1 -g -fno-omit-frame-pointer
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -DONNX_NAMESPACE=onnx -DONNX_ML=1 -I${CMAKE_SOURCE_DIR}/src
            ${fuzz_srcs} -o ${ROOFTOP_FUZZER} -lonnx -lonnx_proto -lprotobuf -lfmt -lpthread
    DEPENDS ${fuzz_srcs} ${fuzz_hdrs}
    COMMENT "Building the ONNX importer fuzzer with clang (libFuzzer + ASan + UBSan)"
    VERBATIM)
  add_custom_target(fuzz_onnx_import DEPENDS ${ROOFTOP_FUZZER})
else()
  message(STATUS "rooftop: clang++ with libFuzzer not found; the ONNX importer fuzzer is not built")
endif()
