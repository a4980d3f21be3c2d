#!/usr/bin/env bash
# Installs the Debian 12 packages rooftop needs.
#   scripts/setup.sh          what building and running need (make run)
#   scripts/setup.sh --test   that plus what the tests drive (make test, make check)
# Idempotent: packages already present are skipped, so the make targets can
# call it every time. Needs root (or sudo) only when something is missing.
set -euo pipefail

# Build and library dependencies of the binary and the Python module (see README.md),
# and the system CA bundle `analyze --prometheus https://...` verifies servers against.
BUILD_PKGS=(
  build-essential cmake ninja-build pkg-config ccache
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev ca-certificates
  libsqlite3-dev sqlite3 libcrypt-dev libssl-dev libgrpc-dev libcurl4-openssl-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libopenmpi-dev openmpi-bin libhwloc-dev
  libopenblas-dev
  help2man
  file   # CPack reads the shared-library dependencies of the .deb with it
  pybind11-dev python3-dev
)
# What the tests build with and drive: GoogleTest and Google Benchmark, a real
# Prometheus and promtool, ONNX models made with python3-onnx, a headless
# browser, wrk, openssl (self-signed certificates), clang's libFuzzer for the parsers' fuzz targets (tests/fuzz),
# shellcheck for bench/device-check.sh, jq for the README example that pipes into it,
# pytest and pandas for the Python module's tests (tests/python).
TEST_PKGS=(
  libgtest-dev libgmock-dev libbenchmark-dev
  prometheus prometheus-node-exporter python3 python3-grpcio python3-onnx python3-numpy python3-yaml python3-jsonschema
  python3-pytest python3-pandas
  chromium curl procps wrk shellcheck openssl jq
  clang libclang-rt-14-dev
  debootstrap podman buildah
)

want=("${BUILD_PKGS[@]}")
case "${1:-}" in
  --test) want+=("${TEST_PKGS[@]}") ;;
  "" | --build-only) ;;
  *) echo "setup: unknown option '$1' (use --test for the test packages)" >&2; exit 2 ;;
esac

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
