#!/usr/bin/env bash
# The container image builds and holds a working rooftop: scripts/image.sh
# builds it (podman/buildah, FROM scratch), `podman create` + `podman export`
# give its root file system, and `rooftop monitor` runs from that root in a
# chroot as the image's non-root user and is scraped from here. (Containers
# cannot run in this sandbox: no setrlimit; images build.)
# labels: slow image
# timeout: 900
set -euo pipefail
. "$SRC/tests/scrape.sh"
command -v podman >/dev/null || { echo "podman not installed (scripts/setup.sh)"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "needs root for chroot"; exit 1; }
TAG=localhost/rooftop:e2e
ROOT="$WORK/rootfs"
PORT=19472
cleanup() {
  [ -n "${MON_PID:-}" ] && kill "$MON_PID" 2>/dev/null || true
  if [ -d "$ROOT/proc" ] && mountpoint -q "$ROOT/proc"; then umount "$ROOT/proc"; fi
  [ -n "${CID:-}" ] && podman rm -f "$CID" >/dev/null 2>&1 || true
}
trap cleanup EXIT
mkdir -p "$WORK"
rm -rf "$ROOT"

bash "$SRC/scripts/image.sh" "$BUILD" "$TAG"
[ "$(podman image inspect --format '{{.Config.User}}' "$TAG")" = "65532:65532" ]
CID=$(podman create "$TAG")
mkdir -p "$ROOT"
podman export "$CID" | tar -x -C "$ROOT"
# Nothing but the binary, its libraries and the user's files.
[ ! -e "$ROOT/bin/sh" ] && [ ! -e "$ROOT/usr/bin/apt-get" ]
chroot --userspec=65532:65532 "$ROOT" /usr/bin/rooftop --version | head -1 | grep -q '^rooftop '

mount -t proc proc "$ROOT/proc"
chroot --userspec=65532:65532 "$ROOT" /usr/bin/rooftop monitor --listen "127.0.0.1:$PORT" --interval 1s \
  --db /var/lib/rooftop/history.db --proc-root / >"$WORK/monitor.log" 2>&1 &
MON_PID=$!
scrape_metrics "$PORT" "$WORK/metrics" "$WORK/monitor.log"
[ -s "$ROOT/var/lib/rooftop/history.db" ] || { echo "the non-root user could not write its history"; exit 1; }
echo "image $TAG: $(du -sh "$ROOT" | cut -f1) root; monitor serves $(grep -c '^# TYPE' "$WORK/metrics") metric families"
