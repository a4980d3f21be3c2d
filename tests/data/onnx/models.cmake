# Generates the ONNX test models (tests/data/onnx/make_models.py) into
# <build>/onnx-models at build time, when a Python with the onnx package
# (Debian: python3-onnx) is present; the unit and e2e tests read them from
# there and skip, saying so, when they are absent.
set(ROOFTOP_ONNX_MODELS_DIR ${CMAKE_BINARY_DIR}/onnx-models)
set(ROOFTOP_ONNX_PYTHON "")
foreach(py /usr/bin/python3 python3)
  execute_process(COMMAND ${py} -c "import onnx, numpy" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(ROOFTOP_ONNX_PYTHON ${py})
    break()
  endif()
endforeach()
if(ROOFTOP_ONNX_PYTHON)
  set(gen ${CMAKE_SOURCE_DIR}/tests/data/onnx/make_models.py)
  add_custom_command(
    OUTPUT ${ROOFTOP_ONNX_MODELS_DIR}/resnet50.onnx
    COMMAND ${ROOFTOP_ONNX_PYTHON} ${gen} ${ROOFTOP_ONNX_MODELS_DIR}
    DEPENDS ${gen}
    COMMENT "Generating ONNX test models (make_models.py)"
    VERBATIM)
  add_custom_target(onnx_test_models ALL DEPENDS ${ROOFTOP_ONNX_MODELS_DIR}/resnet50.onnx)
else()
  message(STATUS "rooftop: no python3 with onnx + numpy; ONNX model tests will be skipped")
endif()
