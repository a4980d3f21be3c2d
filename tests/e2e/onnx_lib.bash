# Shared by the onnx_*.sh e2e scripts (sourced): sets M to a folder holding
# the models of tests/data/onnx/make_models.py (the build's onnx-models, or
# freshly generated), or exits 0 saying why they cannot exist here.
M="$BUILD/onnx-models"
if [ ! -f "$M/resnet50.onnx" ]; then
  M="$WORK/models"
  py=""
  for p in /usr/bin/python3 python3; do
    if "$p" -c 'import onnx, numpy' 2> /dev/null; then py=$p; break; fi
  done
  if [ -z "$py" ]; then echo "skip: no python3 with onnx + numpy to generate the test models"; exit 0; fi
  "$py" "$SRC/tests/data/onnx/make_models.py" "$M"
fi

expect_2() {  # expect_2 PATTERN ARGS...: rooftop exits 2 with PATTERN on stderr
  local pattern=$1 rc=0
  shift
  "$ROOFTOP" "$@" > out.txt 2> err.txt || rc=$?
  if [ "$rc" -ne 2 ] || ! grep -Eq -e "$pattern" err.txt; then
    echo "rooftop $*: exit $rc, expected 2 and /$pattern/ in:"
    cat err.txt
    exit 1
  fi
}
