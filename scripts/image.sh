#!/usr/bin/env bash
# Builds the node image of hsperfguard from a build directory, without any registry, and writes
# it as an OCI archive (one file, for sites without a registry or without a network):
#
#   bash scripts/image.sh BUILD_DIR OUTPUT.tar [NAME:TAG]
#
# The image is FROM scratch: the binary (stripped), the shared libraries `ldd` says it loads
# and the dynamic loader, the license texts, an empty /tmp, and nothing else: no shell, no
# package manager, no /etc/passwd. It needs no name service: run as the DaemonSet runs it
# (packaging/kubernetes/daemonset.yaml: the host's pid namespace, as root), every temp dir it
# audits is a container's as the tool sees it, the host's included (/proc/1/root/tmp), and the
# users of each come from that root's own etc/passwd, parsed by hsperfguard beneath the root
# (never through NSS, and never the image's files). The image's own /tmp is an empty directory
# of root's that nothing can write (the root file system is read-only), so its audit is empty.
#
# Made with buildah in a storage of its own under a temporary directory, removed at the end:
# nothing is pulled, nothing is left in the machine's container storage (buildah, as podman,
# records the digests of the blobs it wrote in /var/lib/containers/cache, the fixed place of
# that cache for root). Load the archive with
# `podman load -i OUTPUT.tar`, `skopeo copy oci-archive:OUTPUT.tar containers-storage:NAME:TAG`
# or `ctr -n k8s.io images import OUTPUT.tar` (containerd). Needs root (buildah, Debian's
# package) and binutils' strip.
#
# Labels: org.opencontainers.image.{title,description,version,revision,created,licenses,source,
# vendor}. The source is HSPERFGUARD_IMAGE_SOURCE, else the git remote "origin" of this
# checkout, else the project's address.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILD_DIR OUTPUT.tar [NAME:TAG]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
build=$1
out=$2
bin=$build/hsperfguard
if [ ! -x "$bin" ]; then
  echo "$0: $bin: no hsperfguard binary in the build directory" >&2
  exit 2
fi
if [ ! -d "$(dirname "$out")" ]; then
  echo "$0: $(dirname "$out"): no such directory" >&2
  exit 2
fi
for tool in buildah ldd strip; do
  command -v "$tool" >/dev/null || { echo "$0: $tool not found (Debian: buildah, libc-bin, binutils)" >&2; exit 2; }
done
version=$("$bin" --version | awk 'NR == 1 { print $2 }')
name=${3:-hsperfguard:$version}
revision=$(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)
source_url=${HSPERFGUARD_IMAGE_SOURCE:-$(git -C "$here" remote get-url origin 2>/dev/null || true)}
# A remote's URL may carry credentials (https://user:token@host/...): the label is public.
source_url=$(printf '%s' "$source_url" | sed -E 's#^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@#\1#')
case $source_url in
  http://* | https://*) ;;
  *) source_url= ;;  # an scp-style or local path says nothing to a reader of the label
esac
source_url=${source_url:-https://hsperfguard.org/}
# Reproducible: the image's files and its creation date are those of the last commit.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 0)}
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

work=$(mktemp -d)
storage=(--root "$work/storage" --runroot "$work/run" --storage-driver vfs)
container=
cleanup() {
  if [ -n "$container" ]; then buildah "${storage[@]}" rm "$container" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The file system, as root:root.
rootfs=$work/rootfs
install -d -m 0755 "$rootfs/usr/bin" "$rootfs/usr/share/doc/hsperfguard" "$rootfs/etc"
install -d -m 1777 "$rootfs/tmp"
strip --strip-unneeded -o "$rootfs/usr/bin/hsperfguard" "$bin"
chmod 0755 "$rootfs/usr/bin/hsperfguard"
# Each library at the path the loader looks for it (the target of a symbolic link, copied under
# the link's name), and the loader at the path in the binary's PT_INTERP.
libs=$(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
[ -n "$libs" ] || { echo "$0: ldd found no libraries for $bin" >&2; exit 1; }
for lib in $libs; do
  install -D -m 0755 "$(readlink -f "$lib")" "$rootfs$lib"
done
install -m 0644 "$here/LICENSE" "$rootfs/usr/share/doc/hsperfguard/LICENSE"
install -m 0644 "$here/packaging/debian/copyright" "$rootfs/usr/share/doc/hsperfguard/copyright"
find "$rootfs" -exec touch -h -d "@$epoch" {} +
chown -R 0:0 "$rootfs"

container=$(buildah "${storage[@]}" from --quiet scratch)
buildah "${storage[@]}" copy --quiet "$container" "$rootfs/" / >/dev/null
buildah "${storage[@]}" config \
  --entrypoint '["/usr/bin/hsperfguard"]' --cmd 'audit' --user 0:0 --workingdir / \
  --env PATH=/usr/bin \
  --label "org.opencontainers.image.title=hsperfguard" \
  --label "org.opencontainers.image.description=Audit and clean up the JVM's hsperfdata namespaces (/tmp/hsperfdata_<user>) of a node and its containers" \
  --label "org.opencontainers.image.version=$version" \
  --label "org.opencontainers.image.revision=$revision" \
  --label "org.opencontainers.image.created=$created" \
  --label "org.opencontainers.image.licenses=Apache-2.0" \
  --label "org.opencontainers.image.source=$source_url" \
  --label "org.opencontainers.image.vendor=hsperfguard maintainers" \
  "$container"
# Written to a new file of our own beside OUTPUT, then renamed onto it: rename(2) replaces a
# name and never follows a link there, so a link someone puts at OUTPUT (in a shared
# directory) is replaced, not written through. A directory there is refused.
if [ -d "$out" ] && [ ! -L "$out" ]; then
  echo "$0: $out: is a directory" >&2
  exit 2
fi
partial=$(mktemp "$(dirname "$out")/.hsperfguard-image.XXXXXX")
trap 'cleanup; rm -f "$partial"' EXIT
buildah "${storage[@]}" commit --quiet --rm --format oci --disable-compression=false --timestamp "$epoch" \
  "$container" "oci-archive:$partial:$name" >/dev/null
container=
chmod 0644 "$partial"
mv -fT "$partial" "$out"
echo "$out: $name, $(stat -c %s "$out") bytes"
