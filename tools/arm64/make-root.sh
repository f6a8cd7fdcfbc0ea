#!/bin/bash
# Makes the arm64 Debian root that tools/arm64/run runs commands in, under
# qemu's user-mode emulator: Debian trixie's arm64 Python 3.13 (with venv and
# pip) and qemu-aarch64-static. Nothing is installed on the host but
# mmdebstrap; nothing is registered with the host's kernel (run does that in
# a user namespace of its own).
#
#   bash tools/arm64/make-root.sh [ROOT]   (default /tmp/arm64root; ~250 MB)
set -euo pipefail
ROOT=${1:-/tmp/arm64root}
MIRROR="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main"

if ! command -v mmdebstrap >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi

# 1) The root: packages extracted, not configured (no arm64 code runs while
#    it is made). Check-Valid-Until=false: the mirror may be a snapshot.
mmdebstrap --variant=extract --arch=arm64 --mode=unshare \
  --aptopt='Acquire::Check-Valid-Until "false"' \
  --aptopt='Apt::Install-Recommends "false"' \
  --include=bash,coreutils,python3,python3-venv,python3-pip,libstdc++6,ca-certificates \
  trixie "$ROOT" "$MIRROR"

# 2) qemu's user-mode emulator, unpacked from Debian's amd64 package (the
#    host's own architecture) into the root, where run registers it.
work=$(mktemp -d)
(cd "$work" && apt-get download qemu-user-static >/dev/null 2>&1 ||
  { apt-get update -qq && apt-get download qemu-user-static >/dev/null; })
dpkg -x "$work"/qemu-user-static_*.deb "$work/x"
install -m 755 "$work/x/usr/bin/qemu-aarch64-static" "$ROOT/usr/bin/qemu-aarch64-static"
rm -rf "$work"

# 3) What an extracted root lacks, since no package script ran: the merged-/usr
#    links (/lib holds the arm64 loader's path), the CA bundle (for pip),
#    /proc, /dev and /tmp. /etc/resolv.conf is bound at run time.
for d in bin lib sbin; do [ -e "$ROOT/$d" ] || ln -s "usr/$d" "$ROOT/$d"; done
mkdir -p "$ROOT/etc/ssl/certs" "$ROOT/proc" "$ROOT/dev" "$ROOT/tmp"
chmod 1777 "$ROOT/tmp"
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
du -sh "$ROOT"
