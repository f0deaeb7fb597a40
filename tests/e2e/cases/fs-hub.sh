# SPDX-License-Identifier: GPL-2.0-only
# fs-hub: shares attached and detached while a 6.12 guest runs
# (docs/fs-hub.md). The VM starts with an empty `--fs-hub hub=DIR`; the
# guest mounts it and sees an empty root. curl attaches share A after
# start: the guest finds A's marker through the hub (A is a submount, its
# own st_dev) and writes a file the host then sees. B is attached
# read-only by its absolute path: the guest reads it, a write is refused.
# The guest holds A's marker open; curl detaches A: nothing of A stays
# open in the VMM (every /proc/PID/fd of it checked by device and inode,
# and something of A was open there before), the guest's listing no
# longer shows A, its held fd fails and its path is gone. Bad requests
# get 400/404. virtio-mmio tells the guest nothing, so the guest polls;
# host and guest hand over through the console and the share's files.
CASE_TIMEOUT=300

. "${E2E_DIR:-}/cases/api-lib.inc"

# wait_line TEXT: the guest printed the line TEXT (else the case fails)
wait_line() {
	while ! tr -d '\r' <"$CASE_WORK/console.raw" | grep -q "^$1\$"; do
		if ! kill -0 $vmm 2>/dev/null || [ $(( $(date +%s) - t0 )) -ge $((CASE_TIMEOUT - 20)) ]; then
			tr -d '\r' <"$CASE_WORK/console.raw" >"$GUEST_LOG"
			echo "the guest never printed '$1' ($(tail -n 1 "$GUEST_LOG"))"
			kill -KILL $vmm 2>/dev/null
			return 1
		fi
		sleep 1
	done
	echo "ok   guest: $1"
}

# open_under DIR: how many fds of any process are open on DIR or below (by device:inode)
open_under() {
	find "$1" -xdev -exec stat -c '%d:%i' {} \; | sort -u >"$CASE_WORK/inodes"
	n=0
	for l in /proc/[0-9]*/fd/*; do
		id=$(stat -L -c '%d:%i' "$l" 2>/dev/null) || continue
		grep -qx "$id" "$CASE_WORK/inodes" && n=$((n + 1))
	done
	echo $n
}

case_host() {
	command -v curl >/dev/null || { echo "no curl in this test host"; return 77; }
	w=$CASE_WORK
	mkdir -p "$w/hub/A" "$w/hub/B" "$w/hub/C"
	ma="FS-HUB-A-$$-$(date +%s)"
	mb="FS-HUB-B-$$-$(date +%s)"
	echo "$ma" >"$w/hub/A/marker"
	echo "$mb" >"$w/hub/B/marker"
	GUEST_LOG=$w/console.log
	t0=$(date +%s)
	timeout -s KILL "$CASE_TIMEOUT" "$STAINLESS" run --kernel "$GUEST_KERNEL" --initrd "$GUEST_INITRD" \
		--cmdline "$GUEST_BASE_CMDLINE stainless.case=fs-hub" --mem 256M \
		--fs-hub "hub=$w/hub,cache=never" --api-sock "$w/api.sock" \
		</dev/null >"$w/console.raw" 2>&1 &
	vmm=$!
	i=0; while [ ! -S "$w/api.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -S "$w/api.sock" ] || { kill -KILL $vmm; echo "no API socket after 10 s"; return 1; }
	wait_line "HUB-EMPTY" || return 1
	want 200 GET /fs-hub/hub || return 1
	[ "$API_BODY" = '{"tag":"hub","shares":[]}' ] || { echo "GET /fs-hub/hub: $API_BODY"; return 1; }
	[ "$(open_under "$w/hub/A")" = 0 ] || { echo "A is open in some process before it is attached"; return 1; }

	want 204 PUT /fs-hub/hub/shares/A '{"path": "A"}' || return 1
	wait_line "HUB-A-READ $ma" || return 1
	wait_line "HUB-A-OWN-DEV" || return 1
	wait_line "HUB-A-WROTE" || return 1
	[ "$(cat "$w/hub/A/from-guest" 2>/dev/null)" = "written in the guest $ma" ] ||
		{ echo "the host does not see the guest's file in A"; return 1; }
	echo "ok   host: the guest's file is in A"

	want 204 PUT /fs-hub/hub/shares/B '{"path": "'"$w/hub/B"'", "readonly": true}' || return 1
	wait_line "HUB-B-READ $mb" || return 1
	wait_line "HUB-B-READONLY" || return 1
	[ ! -e "$w/hub/B/nope" ] || { echo "the guest wrote into read-only B"; return 1; }

	wait_line "HUB-A-HELD" || return 1
	held=$(open_under "$w/hub/A")
	[ "$held" -ge 1 ] || { echo "nothing of A open in the VMM while attached: the check below would prove nothing"; return 1; }
	echo "ok   host: $held fds open on A while attached"
	want 204 DELETE /fs-hub/hub/shares/A || return 1
	left=$(open_under "$w/hub/A")
	[ "$left" = 0 ] || { echo "$left fds still open on A after DELETE"; ls -l /proc/[0-9]*/fd/ 2>/dev/null | grep "$w/hub/A"; return 1; }
	echo "ok   host: nothing open on A after DELETE (was $held)"
	wait_line "HUB-A-GONE-FROM-LISTING" || return 1
	wait_line "HUB-A-FD-FAILS" || return 1
	wait_line "HUB-A-PATH-GONE" || return 1

	want 404 DELETE /fs-hub/hub/shares/A || return 1
	want 409 PUT /fs-hub/hub/shares/B '{"path": "B"}' || return 1
	want 400 PUT /fs-hub/hub/shares/x '{"path": "../.."}' || return 1
	want 400 PUT /fs-hub/hub/shares/x '{"path": "/etc"}' || return 1
	want 400 PUT /fs-hub/hub/shares/x '{"path": "nope"}' || return 1
	want 400 PUT /fs-hub/hub/shares/x '{"path": "C", "colour": 1}' || return 1
	want 400 PUT /fs-hub/hub/shares/x '{}' || return 1
	want 400 PUT '/fs-hub/hub/shares/a%20b' '{"path": "C"}' || return 1
	want 404 PUT /fs-hub/other/shares/x '{"path": "C"}' || return 1
	want 405 GET /fs-hub/hub/shares/B || return 1
	want 200 GET /fs-hub/hub || return 1
	[ "$API_BODY" = '{"tag":"hub","shares":["B"]}' ] || { echo "GET /fs-hub/hub: $API_BODY"; return 1; }

	want 204 PUT /actions '{"action_type": "SendCtrlAltDel"}' || return 1
	wait $vmm
	rc=$?
	tr -d '\r' <"$w/console.raw" >"$GUEST_LOG"
	[ $rc -eq 0 ] || { echo "after SendCtrlAltDel the VMM exited $rc, want 0"; return 1; }
	echo "fs-hub: A attached after start, read and written; B read-only; A detached: gone from the listing, its fd fails, 0 of $held host fds left ($(( $(date +%s) - t0 ))s)"
}

# wait_for CMD...: polls up to 60 s until CMD succeeds (the host tells the guest nothing)
wait_for() {
	i=0
	until "$@" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || return 1
		sleep 0.2
	done
}

no_a_listed() { ! ls /mnt/hub | grep -qx A; }
a_gone() { ! cat /mnt/hub/A/marker >/dev/null 2>&1; }

case_guest() {
	mkdir -p /mnt/hub
	mount -t virtiofs hub /mnt/hub || fail "mount -t virtiofs hub failed"
	[ -z "$(ls -A /mnt/hub)" ] || fail "the hub is not empty at start: $(ls -A /mnt/hub)"
	echo "HUB-EMPTY"
	wait_for test -e /mnt/hub/A/marker || fail "A never appeared in the hub"
	echo "HUB-A-READ $(cat /mnt/hub/A/marker)"
	[ "$(stat -c %d /mnt/hub/A)" != "$(stat -c %d /mnt/hub)" ] ||
		fail "A has the hub's st_dev: not a submount"
	echo "HUB-A-OWN-DEV"
	echo "written in the guest $(cat /mnt/hub/A/marker)" >/mnt/hub/A/from-guest ||
		fail "cannot write into A"
	sync
	echo "HUB-A-WROTE"
	wait_for test -e /mnt/hub/B/marker || fail "B never appeared in the hub"
	echo "HUB-B-READ $(cat /mnt/hub/B/marker)"
	if echo x 2>/dev/null >/mnt/hub/B/nope; then fail "a write into read-only B succeeded"; fi
	echo "HUB-B-READONLY"
	exec 3</mnt/hub/A/marker || fail "cannot open A's marker"
	echo "HUB-A-HELD"
	wait_for no_a_listed || fail "A is still listed after the detach: $(ls /mnt/hub)"
	echo "HUB-A-GONE-FROM-LISTING"
	if cat <&3 >/dev/null 2>&1; then fail "reading A's held fd still works after the detach"; fi
	exec 3<&-
	echo "HUB-A-FD-FAILS"
	wait_for a_gone || fail "A's marker is still readable by path after the detach"
	echo "HUB-A-PATH-GONE"
	# The host ends this VM with SendCtrlAltDel.
	sleep 600
}
