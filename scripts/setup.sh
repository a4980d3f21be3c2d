#!/usr/bin/env bash
# Installs the Debian 12 packages rooftop needs to build, test and run.
# Idempotent: packages already present are skipped, so `make run` and
# `make test` can call it every time. Needs root (or sudo) only when
# something is missing.
set -euo pipefail

# Build and library dependencies (see DEVELOPERS.md / README.md).
BUILD_PKGS=(
  build-essential cmake ninja-build pkg-config ccache
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libsqlite3-dev sqlite3 libcrypt-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin libhwloc-dev
  libopenblas-dev
)
# Tools the test-suite drives (real Prometheus, promtool, ONNX models, headless browser,
# clang's libFuzzer for the ONNX importer's fuzz target).
TEST_PKGS=(
  prometheus prometheus-node-exporter python3 python3-onnx python3-numpy python3-yaml python3-jsonschema
  chromium curl procps wrk
  clang libclang-rt-14-dev
)

want=("${BUILD_PKGS[@]}")
if [ "${1:-}" != "--build-only" ]; then
  want+=("${TEST_PKGS[@]}")
fi

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
