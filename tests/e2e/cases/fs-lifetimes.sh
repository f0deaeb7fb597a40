# SPDX-License-Identifier: GPL-2.0-only
# fs-lifetimes: change-aware lifetimes over virtio-fs (docs/host-changes.md).
# The VM shares a directory with cache=always,watches=64; the guest's
# driver reads no notification, so the bound is the longest lifetime the
# server grants, 10 s. The guest stats a, b, d and e (its caches fill);
# the host then chmods a, moves b to c, removes d and appends to e
# through an fd it holds open, and creates go (a name never looked up:
# nothing cached, the guest sees it at once). From go on, the guest
# polls each change and fails unless it sees every one within 12 s (the
# 10 s bound plus its own polling); it prints how long each took.
CASE_TIMEOUT=300

# The host's side: once the guest has cached the files, change them.
host_side() {
	sh=$1
	i=0
	until tr -d '\r' <"$CASE_WORK/console.raw" 2>/dev/null | grep -q '^LIFE-CACHED$'; do
		i=$((i + 1)); [ $i -lt $((CASE_TIMEOUT * 5)) ] || return 1; sleep 0.2
	done
	exec 4>>"$sh/e"
	chmod 600 "$sh/a" && mv "$sh/b" "$sh/c" && rm "$sh/d" && echo appended >&4 || return 1
	touch "$sh/go"
	echo "host: changed a, b, d, e, then made go"
	i=0  # e stays open while the guest looks
	until tr -d '\r' <"$CASE_WORK/console.raw" | grep -q '^LIFE-SEEN'; do
		i=$((i + 1)); [ $i -lt 600 ] || return 1; sleep 0.2
	done
}

case_host() {
	sh=$CASE_WORK/share
	mkdir -p "$sh"
	for f in a b d e; do echo data >"$sh/$f"; done
	chmod 644 "$sh/a"
	host_side "$sh" >"$CASE_WORK/host.log" 2>&1 &
	hs=$!
	run_guest --fs "life=$sh,cache=always,watches=64"
	kill "$hs" 2>/dev/null
	wait "$hs" 2>/dev/null
	cat "$CASE_WORK/host.log"
	check_guest || return 1
	if grep -q "watch budget" "$GUEST_LOG"; then
		echo "a budget line where none was spent"
		return 1
	fi
	echo "fs-lifetimes: $(grep -m1 '^LIFE-SEEN' "$GUEST_LOG")"
}

# Each change as the guest sees it: true once it shows.
seen_chmod() { [ "$(stat -c %a /mnt/life/a)" = 600 ]; }
seen_mv() { [ -e /mnt/life/c ] && ! [ -e /mnt/life/b ]; }
seen_rm() { ! [ -e /mnt/life/d ]; }
seen_append() { [ "$(stat -c %s /mnt/life/e)" = 14 ]; }

case_guest() {
	mkdir -p /mnt/life
	mount -t virtiofs life /mnt/life || fail "mount -t virtiofs life failed"
	# Let the files age a little, so their lifetimes are above 1 s, then cache them.
	sleep 4
	for f in a b d e; do stat /mnt/life/$f >/dev/null || fail "stat $f"; cat /mnt/life/$f >/dev/null; done
	echo "LIFE-CACHED"
	i=0
	until [ -e /mnt/life/go ]; do
		i=$((i + 1)); [ $i -lt 600 ] || fail "go never appeared"; sleep 0.1
	done
	start=$(date +%s)
	left="chmod mv rm append" out=
	while [ -n "$left" ]; do
		now=$(( $(date +%s) - start )) rest=
		for c in $left; do
			if seen_$c 2>/dev/null; then out="$out $c=${now}s"; else rest="$rest $c"; fi
		done
		left=$rest
		[ -z "$left" ] || [ $now -le 12 ] || fail "not seen within 12 s:$left (seen:$out)"
		[ -z "$left" ] || sleep 0.2
	done
	[ "$(tail -n 1 /mnt/life/e)" = appended ] || fail "e's appended line does not read back"
	echo "LIFE-SEEN$out (bound 10 s)"
	umount /mnt/life || fail "umount failed"
}
