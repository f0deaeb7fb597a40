#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The crun handler plugin (dist/crun/, docs/containers.md "crun") against
# Debian's crun, in a private mount namespace whose crun handlers
# directory holds only the plugin just built (an overlay: the host's own
# directory is not touched):
#   - crun --version lists +STAINLESS: crun found, loaded and kept it;
#   - a busybox bundle annotated run.oci.handler=stainless without /dev/kvm
#     is refused with the message naming linux.devices, before any VM;
#   - with /dev/kvm granted, crun's container process is the stainless
#     binary from the tools directory, run through its own loader and
#     libraries (the container's root has none) from /dev/.stainless,
#     and the handler left nothing in the bundle's rootfs;
#   (which options config.json becomes: tests/unit/test_oci_args.c);
#   - a bundle without the annotation runs as a plain container.
# Booting the guest (uname, exit status, kill) is tests/e2e/cases/crun.sh.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# The binary itself, not the log pass's wrapper script: it is copied into the tools directory.
BIN=${STAINLESS_REAL:-$STAINLESS}
O=$(dirname "$BIN")
fail() { echo "FAIL: $*"; exit 1; }
command -v crun >/dev/null 2>&1 || { echo "SKIP: no crun (apt-get install crun)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (crun run, mount namespaces)"; exit 77; }
command -v unshare >/dev/null 2>&1 || { echo "SKIP: no unshare"; exit 77; }
BB=/bin/busybox
[ -x "$BB" ] && "$BB" --list 2>/dev/null | grep -qx sh || { echo "SKIP: no busybox"; exit 77; }
"$BB" --help 2>&1 | head -1 | grep -qi static ||
	file -L "$BB" 2>/dev/null | grep -q static || { echo "SKIP: busybox is not static"; exit 77; }
T=$(mktemp -d /tmp/crun-handler.XXXXXX)
trap 'rm -rf "$T"' EXIT

make -s -C "$ROOT" O="$O" crun-handler >"$T/make.log" 2>&1 || {
	cat "$T/make.log"
	grep -q "refusing to build" "$T/make.log" && { echo "SKIP: crun is not the version the plugin is written for"; exit 77; }
	fail "make crun-handler"
}
SO=$O/dist/crun/stainless.so
HDIR=$(make -s -C "$ROOT" O="$O" crun-handlers-dir) || fail "make crun-handlers-dir"
# crun looks exactly there: its path is a string in the binary.
grep -aq "$HDIR" "$(command -v crun)" || fail "crun does not name $HDIR (make's CRUN_HANDLERS_DIR)"
"$ROOT/dist/crun/mktools" "$T/tools" "$BIN" /dev/null >"$T/mktools.log" 2>&1 ||
	{ cat "$T/mktools.log"; fail "dist/crun/mktools"; }

# The bundles: busybox alone, the default crun spec plus what each needs.
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 to edit config.json"; exit 77; }
. "$HERE/crun_bundle.inc"
mkdir -p "$T/data"
crun_rootfs "$T/rootfs"
for b in "plain 0 1" "nokvm 1 0" "vm 1 1"; do
	set -- $b
	crun_mkbundle "$T/$1" ../rootfs "$T/data" "$2" "$3"
done
# crun's own mount points are made: only the handler's traces count.
find "$T/rootfs" | sort >"$T/rootfs.before"

# Inside: the handlers directory overlaid with the plugin alone.
cat >"$T/inner.sh" <<EOF
set -u
mkdir -p "$T/lower/crun/handlers" "$T/upper" "$T/work"
cp "$SO" "$T/lower/crun/handlers/stainless.so"
libdir=\$(dirname "\$(dirname "$HDIR")")
mount -t overlay overlay -o "lowerdir=$T/lower:\$libdir" "\$libdir" || exit 90
# This host's cgroups are hybrid, which crun refuses: a cgroup2 of this namespace's own
# (crun runs with --cgroup-manager=disabled; the nested e2e host has cgroup2 proper).
[ "\$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || mount -t cgroup2 none /sys/fs/cgroup || exit 90
export STAINLESS_CRUN_TOOLS="$T/tools"
C="crun --cgroup-manager=disabled --root $T/state"
echo "== version"; crun --version
echo "== plain"; (cd "$T/plain" && \$C run plain-\$\$ 2>&1); echo "rc=\$?"
echo "== nokvm"; (cd "$T/nokvm" && \$C run nokvm-\$\$ 2>&1); echo "rc=\$?"
echo "== vm"; (cd "$T/vm" && \$C run vm-\$\$ 2>&1); echo "rc=\$?"
EOF
unshare -m --propagation private sh "$T/inner.sh" >"$T/out" 2>&1
rc=$?
[ $rc -eq 90 ] && { cat "$T/out"; echo "SKIP: cannot mount an overlay on crun's library directory"; exit 77; }
section() { sed -n "/^== $1\$/,/^== /p" "$T/out"; }

section version | grep -q '+STAINLESS' || { cat "$T/out"; fail "crun --version does not list +STAINLESS"; }
section plain | grep -q '^plain container$' || { cat "$T/out"; fail "a bundle without the annotation did not run as a plain container"; }
section nokvm | grep -q 'no /dev/kvm: add it to linux.devices' ||
	{ cat "$T/out"; fail "a bundle without /dev/kvm was not refused naming linux.devices"; }
section nokvm | grep -q '^rc=0$' && fail "a bundle without /dev/kvm exited 0"
v=$(section vm)
echo "$v" | grep -q '^stainless exec: ' ||
	{ cat "$T/out"; fail "the container's process was not the stainless binary from the tools directory"; }
find "$T/rootfs" | sort >"$T/rootfs.after"
cmp -s "$T/rootfs.before" "$T/rootfs.after" ||
	{ diff "$T/rootfs.before" "$T/rootfs.after"; fail "the handler left files in the container's rootfs"; }
echo "PASS: crun loads the plugin (+STAINLESS), refuses a container without /dev/kvm, runs stainless from /dev/.stainless for one with it"
