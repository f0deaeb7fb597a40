# SPDX-License-Identifier: GPL-2.0-only
# rootless: a user other than root (uid 65534, no capabilities) runs the
# VMM on directories it owns, sandboxed (sandbox/sandbox.h: a user namespace
# maps it to the guest's root; ids other than the guest's root have no
# mapping and are refused, EPERM). The guest mounts a virtio-fs and a 9p
# share, reads what the host put there and writes; on the host, what the
# guest made belongs to that user. Needs util-linux setpriv in the test host
# (guest-images/build-testhost packs it as /usr/bin/setpriv-ul).
CASE_ARGS=""
CASE_TIMEOUT=120
RL_UID=65534

case_guest() {
	mount -t virtiofs fs /mnt || fail "mount -t virtiofs fs /mnt failed"
	[ "$(cat /mnt/host.txt)" = "from the host" ] || fail "virtio-fs host.txt reads '$(cat /mnt/host.txt)'"
	echo "from the guest" >/mnt/guest.txt || fail "cannot create a file on virtio-fs"
	mkdir /mnt/guest-dir || fail "cannot mkdir on virtio-fs"
	umount /mnt
	# uname=root: the kernel's first attach otherwise names "nobody", whose
	# uid (65534) the single rootless mapping has not got.
	mount -t 9p -o trans=virtio,version=9p2000.L,uname=root p9 /mnt ||
		fail "mount -t 9p p9 /mnt failed"
	[ "$(cat /mnt/host.txt)" = "from the host" ] || fail "9p host.txt reads '$(cat /mnt/host.txt)'"
	echo "from the guest" >/mnt/guest.txt || fail "cannot create a file on 9p"
	umount /mnt
	echo "rootless: read and wrote both shares"
}

case_host() {
	setpriv=$(command -v setpriv-ul || command -v setpriv)
	"$setpriv" --help 2>&1 | grep -q reuid ||
		{ echo "no util-linux setpriv (--reuid) in this host"; return 77; }
	# Every real host has root in its user database, which the 9p server
	# reads for a client's groups; the busybox test host has none. (A uid
	# unknown there gets gid 65534, which a rootless namespace does not map.)
	[ -s /etc/passwd ] || echo 'root:x:0:0:root:/:/bin/sh' >/etc/passwd
	[ -s /etc/group ] || echo 'root:x:0:' >/etc/group
	for s in fs p9; do
		mkdir -p "$CASE_WORK/$s"
		echo "from the host" >"$CASE_WORK/$s/host.txt"
	done
	chown -R $RL_UID:$RL_UID "$CASE_WORK/fs" "$CASE_WORK/p9"
	# The user must reach its directories and /dev/kvm (a kvm group elsewhere).
	d=$CASE_WORK
	while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done
	chmod o+rw /dev/kvm
	printf '#!/bin/sh\nexec %s --reuid=%s --regid=%s --clear-groups %s "$@"\n' \
		"$setpriv" $RL_UID $RL_UID "$STAINLESS" >"$CASE_WORK/as-user"
	chmod 755 "$CASE_WORK/as-user"
	STAINLESS=$CASE_WORK/as-user run_guest --fs "fs=$CASE_WORK/fs" --9p "p9=$CASE_WORK/p9"
	check_guest || return 1
	for s in fs p9; do
		f=$CASE_WORK/$s/guest.txt
		[ "$(cat "$f" 2>/dev/null)" = "from the guest" ] || { echo "$s: guest.txt not on the host"; return 1; }
		[ "$(stat -c %u "$f")" = $RL_UID ] ||
			{ echo "$s: guest.txt owned by $(stat -c %u:%g "$f"), want $RL_UID"; return 1; }
	done
	[ "$(stat -c %u "$CASE_WORK/fs/guest-dir")" = $RL_UID ] ||
		{ echo "fs: guest-dir not owned by $RL_UID"; return 1; }
	echo "rootless: uid $RL_UID ran the VM; the guest's files on both shares are its own"
}
