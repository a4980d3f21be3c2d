#!/usr/bin/env bash
# --web.config.file with tls_server_config: a self-signed certificate made
# here with the openssl CLI; curl (verifying against it) and a real
# Prometheus scrape /metrics over HTTPS with basic auth; plain HTTP on the
# TLS port gets no answer; a certificate that does not match its key, an
# unreadable certificate or an unsupported TLS setting is exit 2 naming it.
# labels: monitor security
# timeout: 120
set -euo pipefail
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR
mkdir -p "$WORK" && cd "$WORK" && rm -rf prom-data tls && mkdir tls
command -v openssl >/dev/null || { echo "FAIL: the openssl CLI is needed (scripts/setup.sh --test)"; exit 1; }
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout tls/key.pem -out tls/cert.pem 2>/dev/null
openssl genrsa -out tls/other.pem 2048 2>/dev/null
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024).replace("$2b$", "$2y$")))')
# Relative paths are relative to the config file.
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  alice: %s\n' "$hash" > tls/web.yml

expect_exit2() {  # expect_exit2 PATTERN FILE
  local rc=0
  "$ROOFTOP" monitor --web.config.file "$2" --backends "fake:$SRC/data/traces/a100-idle.csv" \
    --listen 127.0.0.1:0 > out.txt 2> err.txt || rc=$?
  [ "$rc" = 2 ] && grep -q -- "$1" err.txt || { cat err.txt; echo "FAIL: $2: exit $rc"; exit 1; }
}
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: other.pem\n' > tls/mismatch.yml
expect_exit2 'cert.pem does not match the key .*other.pem' tls/mismatch.yml
printf 'tls_server_config:\n  cert_file: missing.pem\n  key_file: key.pem\n' > tls/missing.yml
expect_exit2 'missing.pem: cannot read the TLS certificate file' tls/missing.yml
printf 'tls_server_config:\n  cert_file: key.pem\n  key_file: key.pem\n' > tls/notcert.yml
expect_exit2 'key.pem: not a PEM certificate' tls/notcert.yml
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n  client_auth_type: RequireAndVerifyClientCert\n' > tls/mtls.yml
expect_exit2 'mtls.yml:4.*client_auth_type is not supported' tls/mtls.yml
printf 'tls_server_config:\n  cert_file: cert.pem\n' > tls/nokey.yml
expect_exit2 'nokey.yml.*key_file' tls/nokey.yml
echo "ok: bad TLS settings are exit 2 naming the file"

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT
. "$SRC/tests/monitor_lib.sh"
monitor_start m.json --web.config.file tls/web.yml --backends "fake:$SRC/data/traces/a100-idle.csv"
mport=$MON_PORT tls_pid=$MON_PID
python3 -c 'import json; u=json.load(open("m.json"))["url"]; assert u.startswith("https://"), u'
url="https://127.0.0.1:$mport"
code() { curl -s --cacert tls/cert.pem -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code "$url/metrics")" = 401 ]
[ "$(code -u alice:s3cret "$url/metrics")" = 200 ]
curl -sf --cacert tls/cert.pem -u alice:s3cret "$url/metrics" > metrics.txt
grep -q '^DCGM_FI_DEV_GPU_UTIL{' metrics.txt
[ "$(code "$url/healthz")" = 200 ]
# Keep-alive: several requests on one TLS connection.
[ "$(curl -s --cacert tls/cert.pem -o /dev/null -o /dev/null -o /dev/null -w '%{http_code}/%{num_connects} ' \
  "$url/healthz" "$url/healthz" "$url/healthz")" = "200/1 200/0 200/0 " ]
# Without the certificate, curl refuses it (it is self-signed); plain HTTP gets no HTTP answer.
if curl -s -o /dev/null "$url/healthz"; then echo "FAIL: an unverified certificate was accepted"; exit 1; fi
[ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/healthz" || true)" = 000 ]
[ "$(code -u alice:s3cret "$url/metrics")" = 200 ]  # the server survived the plain-text client
echo "ok: HTTPS with basic auth"

# A real Prometheus scrapes over HTTPS, verifying the certificate.
prom_start "{job_name: rooftop, scheme: https, tls_config: {ca_file: $PWD/tls/cert.pem}, basic_auth: {username: alice, password: s3cret}, static_configs: [{targets: ['127.0.0.1:$mport']}]}"
prom_wait_up rooftop
[ "$(prom_count DCGM_FI_DEV_GPU_UTIL)" = 1 ]
echo "ok: Prometheus scrapes over TLS"

# libssl is loaded only when TLS is asked for.
grep -q 'libssl' "/proc/$tls_pid/maps" || { echo "FAIL: the TLS monitor has no libssl mapped?"; exit 1; }
kill "$tls_pid"
monitor_start p.json --backends "fake:$SRC/data/traces/a100-idle.csv"
if grep -q 'libssl' "/proc/$MON_PID/maps"; then echo "FAIL: libssl mapped without TLS"; exit 1; fi
echo "ok: plain HTTP does not load libssl"
