# SPDX-License-Identifier: GPL-2.0-only
# fs-rmtree: `rm -rf` of a tree whose directories span several READDIR
# replies removes every entry, over virtio-fs (cache=never and auto) and
# 9p. rm reads a directory in batches and unlinks between them, and it
# reads each subdirectory while its parent stays open: a server that reads
# ahead and then seeks its directory fd back to the last entry it sent
# skips entries where the host filesystem's offsets are positions
# (ramfs/tmpfs before 6.6, as in the test host), and rm fails with
# "Directory not empty". Shares its boot with fs-never, fs-auto and p9.
. "${E2E_DIR:-}/cases/share-lib.inc"
CASE_BOOT=shares
CASE_ARGS="--fs rmnever=$CASE_WORK/never,cache=never --fs rmauto=$CASE_WORK/auto,cache=auto --9p rmp9=$CASE_WORK/p9"
CASE_TIMEOUT=300

case_setup() {
	mkdir -p "$CASE_WORK/never" "$CASE_WORK/auto" "$CASE_WORK/p9"
}

# tree DIR: 3 directories of 400 files with 40-byte names (each ~30 KiB
# of dirents: 8 or more 4 KiB READDIR replies), and one of 300
# subdirectories with 2 files each, so rm reads a child between two
# batches of its parent.
tree() {
	for d in 1 2 3; do
		mkdir -p "$1/d$d" || return 1
		(cd "$1/d$d" && i=0 && while [ $i -lt 400 ]; do
			: >"file-with-a-name-forty-bytes-long-$i"
			i=$((i + 1))
		done) || return 1
	done
	mkdir -p "$1/wide" || return 1
	(cd "$1/wide" && i=0 && while [ $i -lt 300 ]; do
		mkdir "subdirectory-with-a-long-name-$i" && : >"subdirectory-with-a-long-name-$i/a" &&
			: >"subdirectory-with-a-long-name-$i/b" || exit 1
		i=$((i + 1))
	done) || return 1
}

rmtree() { # TAG TYPE MOUNTOPTS
	mkdir -p "/mnt/$1"
	mount -t "$2" ${3:+-o "$3"} "$1" "/mnt/$1" || fail "mount -t $2 $1 failed"
	tree "/mnt/$1/t" || fail "$1: cannot lay out the tree"
	[ "$(ls /mnt/$1/t/d3 | wc -l)" = 400 ] || fail "$1: d3 lists $(ls /mnt/$1/t/d3 | wc -l) entries, not 400"
	out=$(rm -rf "/mnt/$1/t" 2>&1) || fail "$1: rm -rf failed: $(echo "$out" | head -n 3)"
	[ ! -e "/mnt/$1/t" ] || fail "$1: the tree is still there after rm -rf"
	umount "/mnt/$1" || fail "umount $1 failed"
}

case_guest() {
	rmtree rmnever virtiofs
	rmtree rmauto virtiofs
	rmtree rmp9 9p "trans=virtio,version=9p2000.L,msize=512000"
}

case_check() {
	for d in never auto p9; do
		left=$(find "$CASE_WORK/$d" -mindepth 1 | wc -l)
		[ "$left" = 0 ] || { echo "fs-rmtree: $left entries left in the $d share on the host"; return 1; }
	done
	echo "fs-rmtree: rm -rf of 3 x 400 files and 300 x 2 in subdirectories emptied the virtio-fs (never, auto) and 9p shares (shared boot: ${GUEST_SECS}s)"
}
