#!/usr/bin/env bash
# The Debian package installs into a fresh Debian 12 root: cpack builds the
# .deb (dependencies from dpkg-shlibdeps), debootstrap makes a minimal
# bookworm root (its tarball cached under the build folder), apt installs the
# .deb with its dependencies there, and the installed rooftop advises, prints
# its version and man page, and serves metrics that are scraped from here;
# Debian's python3 imports the installed module and predicts with it.
# Needs root (chroot, mount) and the Debian mirror.
# labels: slow package
# timeout: 1800
set -euo pipefail
. "$SRC/tests/scrape.sh"
MIRROR=${ROOFTOP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE="$BUILD/debootstrap/bookworm-minbase.tgz"
ROOT="$WORK/root"
PORT=19471
command -v debootstrap >/dev/null || { echo "debootstrap not installed (scripts/setup.sh)"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "needs root for chroot"; exit 1; }

cleanup() {
  [ -n "${MON_PID:-}" ] && kill "$MON_PID" 2>/dev/null || true
  if [ -d "$ROOT/proc" ] && mountpoint -q "$ROOT/proc"; then umount "$ROOT/proc"; fi
}
trap cleanup EXIT

cmake --build "$BUILD" --target package >"$WORK.cpack.log" 2>&1 || { cat "$WORK.cpack.log"; exit 1; }
DEB=$(ls -t "$BUILD"/rooftop_*.deb | head -1)
dpkg-deb --info "$DEB" | tee "$WORK.info" | grep -E 'Package|Version|Depends'
grep -q 'Depends:.*libc6' "$WORK.info"           # found by dpkg-shlibdeps
grep -q 'Recommends:.*python3 (>= 3' "$WORK.info"  # the interpreter the module is built for
dpkg-deb --contents "$DEB" >"$WORK.contents"
grep -qE ' \./usr/lib/python3/dist-packages/rooftop/_native\.cpython-3[0-9]+-[a-z0-9_]+-linux-gnu\.so$' "$WORK.contents" \
  || { echo "missing from the package: the Python extension"; exit 1; }
for f in ./usr/bin/rooftop ./usr/share/man/man1/rooftop.1.gz ./usr/share/bash-completion/completions/rooftop \
         ./usr/share/zsh/vendor-completions/_rooftop ./usr/share/doc/rooftop/README.md \
         ./usr/share/rooftop/scenarios/default.yaml ./usr/lib/python3/dist-packages/rooftop/__init__.py \
         ./usr/lib/python3/dist-packages/rooftop/__init__.pyi; do
  grep -q " $f\$" "$WORK.contents" || { echo "missing from the package: $f"; exit 1; }
done

cleanup
rm -rf "$ROOT"
mkdir -p "$(dirname "$CACHE")" "$WORK"
if [ ! -s "$CACHE" ]; then
  debootstrap --variant=minbase --make-tarball="$CACHE" bookworm "$WORK/dbs-tmp" "$MIRROR"
  rm -rf "$WORK/dbs-tmp"
fi
debootstrap --variant=minbase --unpack-tarball="$CACHE" bookworm "$ROOT" "$MIRROR" >"$WORK.debootstrap.log" 2>&1 \
  || { tail -30 "$WORK.debootstrap.log"; exit 1; }
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
echo "deb $MIRROR bookworm main" >"$ROOT/etc/apt/sources.list"
cp "$DEB" "$ROOT/tmp/rooftop.deb"
mount -t proc proc "$ROOT/proc"
chroot "$ROOT" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get update -qq
chroot "$ROOT" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  /tmp/rooftop.deb >"$WORK.apt.log" 2>&1 || { tail -30 "$WORK.apt.log"; exit 1; }

chroot "$ROOT" rooftop --version | tee "$WORK.version"
grep -q '^rooftop [0-9]' "$WORK.version"
grep -q 'benchmark backends:' "$WORK.version"
chroot "$ROOT" rooftop advise /usr/share/rooftop/scenarios/default.yaml >"$WORK.advise"
grep -q '[A-Za-z]' "$WORK.advise"
grep -q '^\.SH' <(zcat "$ROOT/usr/share/man/man1/rooftop.1.gz")
# The module, with the interpreter the package recommends (and nothing else).
chroot "$ROOT" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 \
  >"$WORK.apt-python.log" 2>&1 || { tail -30 "$WORK.apt-python.log"; exit 1; }
chroot "$ROOT" python3 -c "import rooftop; print(rooftop.predict('llama-3.1-8b', 'nvidia-h100-sxm5-80gb').throughput)" \
  | tee "$WORK.python"
grep -q "'unit': 'tokens/s'" "$WORK.python"
chroot "$ROOT" python3 -c "import rooftop
try:
    rooftop.catalog.show('no-such-part')
except rooftop.Error as e:
    assert e.exit_code == 2, e
else:
    raise SystemExit('no rooftop.Error')"

chroot "$ROOT" rooftop monitor --listen "127.0.0.1:$PORT" --interval 1s --db /tmp/history.db >"$WORK.monitor.log" 2>&1 &
MON_PID=$!
scrape_metrics "$PORT" "$WORK.metrics" "$WORK.monitor.log"
echo "installed .deb ($(basename "$DEB")) advises and serves $(grep -c '^# TYPE' "$WORK.metrics") metric families"
