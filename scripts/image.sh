#!/usr/bin/env bash
# Builds the rooftop container image from a build folder (make image):
# stages BUILD/image/rootfs with the binary, the shared libraries `ldd`
# reports (copied to the paths the loader looks in), the loader's cache, a
# passwd/group with the non-root user 65532, /tmp and the state folder; then
# `podman build` (or `buildah bud`) with the Containerfile. No RUN step, so
# it builds where containers cannot run.
# usage: scripts/image.sh BUILD_DIR [TAG...]   (default tags rooftop:VERSION, rooftop:latest)
set -euo pipefail
BUILD=${1:?usage: scripts/image.sh BUILD_DIR [TAG...]}
shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD/rooftop"
[ -x "$BIN" ] || { echo "image: $BIN not built (make build)" >&2; exit 2; }
VERSION=$("$BIN" --version | sed -n '1s/^rooftop //p')
TAGS=("$@")
[ ${#TAGS[@]} -gt 0 ] || TAGS=("rooftop:$VERSION" "rooftop:latest")

CTX="$BUILD/image"
ROOT="$CTX/rootfs"
rm -rf "$CTX"
mkdir -p "$ROOT/usr/bin" "$ROOT/etc" "$ROOT/tmp" "$ROOT/proc" "$ROOT/sys" "$ROOT/var/lib" "$CTX/state"
install -m 0755 "$BIN" "$ROOT/usr/bin/rooftop"
strip --strip-debug "$ROOT/usr/bin/rooftop"
# Every library the binary links, at the path the loader resolved it to (the
# loader itself included); symbolic links are followed.
# monitor dlopens Debian's libssl (TLS) and libgrpc (Kubernetes pod
# attribution) only when asked: they and what they link are staged too.
OPTIONAL_LIBS=()
for soname in libssl.so.3 libgrpc.so.29; do
  # awk reads to the end: an early exit would SIGPIPE ldconfig, and pipefail
  # would end this script without a word.
  path=$(ldconfig -p | awk -v n="$soname" '$1 == n && /x86-64/ && !found { print $NF; found = 1 }')
  [ -n "$path" ] && OPTIONAL_LIBS+=("$path")
done
for obj in "$BIN" "${OPTIONAL_LIBS[@]}"; do
  [ "$obj" = "$BIN" ] || echo "$obj"
  ldd "$obj" | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }'
done | sort -u | while read -r lib; do
  mkdir -p "$ROOT$(dirname "$lib")"
  cp -L "$lib" "$ROOT$lib"
done
# Debian's loader lives in /lib64 by its ABI name and in the multiarch folder.
if [ -e "$ROOT/lib64/ld-linux-x86-64.so.2" ] && [ ! -e "$ROOT/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ]; then
  mkdir -p "$ROOT/lib/x86_64-linux-gnu"
  cp "$ROOT/lib64/ld-linux-x86-64.so.2" "$ROOT/lib/x86_64-linux-gnu/"
fi
mkdir -p "$ROOT/etc/ld.so.conf.d"
printf '/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' >"$ROOT/etc/ld.so.conf.d/x86_64-linux-gnu.conf"
echo 'include /etc/ld.so.conf.d/*.conf' >"$ROOT/etc/ld.so.conf"
ldconfig -r "$ROOT"
printf 'root:x:0:0:root:/root:/nonexistent\nrooftop:x:65532:65532:rooftop:/var/lib/rooftop:/nonexistent\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\nrooftop:x:65532:\n' >"$ROOT/etc/group"
chmod 1777 "$ROOT/tmp"
cp "$SRC/Containerfile" "$CTX/Containerfile"

tag_args=()
for t in "${TAGS[@]}"; do tag_args+=(-t "$t"); done
if command -v podman >/dev/null; then
  podman build --quiet -f "$CTX/Containerfile" "${tag_args[@]}" "$CTX"
elif command -v buildah >/dev/null; then
  buildah bud --quiet -f "$CTX/Containerfile" "${tag_args[@]}" "$CTX"
else
  echo "image: neither podman nor buildah is installed (apt-get install podman)" >&2
  exit 1
fi
echo "image: built ${TAGS[*]} ($(du -sh "$ROOT" | cut -f1) root file system)"
