# SPDX-License-Identifier: GPL-2.0-only
# api: a 6.12 guest configured and started over the API socket with curl,
# as a container runtime would. `stainless run --api-sock` waits; curl
# PUTs the boot source, the machine config and a virtio-fs share, then
# InstanceStart; the guest mounts the share and prints the host's marker
# file. An fs-hub is configured the same way (PUT /fs-hub/hub; a bad
# directory, a taken tag and a per-share option refused with 400 first);
# after start curl attaches share A to it and the guest reads A's marker
# through the hub. GET / says Running; a configuring PUT (a hub too) is
# now refused with 409;
# SendCtrlAltDel presses Ctrl+Alt+Del on the VM's i8042 keyboard: the
# guest's init gets the kernel's SIGINT, says so, syncs and reboots, and
# the VMM exits 0, its socket file gone.
CASE_TIMEOUT=240

. "${E2E_DIR:-}/cases/api-lib.inc"

case_host() {
	command -v curl >/dev/null || { echo "no curl in this test host"; return 77; }
	w=$CASE_WORK
	mkdir -p "$w/share" "$w/hub/A"
	marker="STAINLESS-API-SHARE-$$-$(date +%s)"
	echo "$marker" >"$w/share/marker"
	echo "HUB-$marker" >"$w/hub/A/marker"
	GUEST_LOG=$w/console.log
	t0=$(date +%s)
	timeout -s KILL "$CASE_TIMEOUT" "$STAINLESS" run --api-sock "$w/api.sock" \
		</dev/null >"$w/console.raw" 2>&1 &
	vmm=$!
	i=0; while [ ! -S "$w/api.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -S "$w/api.sock" ] || { kill -KILL $vmm; echo "no API socket after 10 s"; return 1; }
	want 200 GET / || return 1
	want 204 PUT /boot-source '{"kernel_image_path": "'"$GUEST_KERNEL"'", "initrd_path": "'"$GUEST_INITRD"'", "boot_args": "'"$GUEST_BASE_CMDLINE"' stainless.case=api"}' || return 1
	want 204 PUT /machine-config '{"vcpu_count": 1, "mem_size_mib": 256}' || return 1
	want 204 PUT /fs/apishare '{"shared_dir": "'"$w/share"'", "cache": "auto"}' || return 1
	want 400 PUT /fs-hub/hub '{"shared_dir": "'"$w/nope"'"}' || return 1
	want 400 PUT /fs-hub/apishare '{"shared_dir": "'"$w/hub"'"}' || return 1
	want 400 PUT /fs-hub/hub '{"shared_dir": "'"$w/hub"'", "readonly": true}' || return 1
	want 404 PUT /fs-hub/hub/shares/A '{"path": "A"}' || return 1
	want 204 PUT /fs-hub/hub '{"shared_dir": "'"$w/hub"'", "cache": "never"}' || return 1
	want 409 PUT /fs-hub/hub/shares/A '{"path": "A"}' || return 1
	want 204 PUT /actions '{"action_type": "InstanceStart"}' || return 1
	# The guest mounts the share, prints the marker and waits.
	i=0
	while ! tr -d '\r' <"$w/console.raw" | grep -q "^API-SHARE-READ $marker\$"; do
		if ! kill -0 $vmm 2>/dev/null || [ $(( $(date +%s) - t0 )) -ge $((CASE_TIMEOUT - 20)) ]; then
			tr -d '\r' <"$w/console.raw" >"$GUEST_LOG"
			echo "the guest never printed the share's marker ($(tail -n 1 "$GUEST_LOG"))"
			kill -KILL $vmm 2>/dev/null
			return 1
		fi
		sleep 1
	done
	echo "ok   the guest read the share over virtio-fs after $(( $(date +%s) - t0 ))s"
	want 204 PUT /fs-hub/hub/shares/A '{"path": "A", "readonly": true}' || return 1
	i=0
	while ! tr -d '\r' <"$w/console.raw" | grep -q "^API-HUB-READ HUB-$marker\$"; do
		i=$((i + 1))
		if [ $i -gt 60 ] || ! kill -0 $vmm 2>/dev/null; then
			echo "the guest never read A through the hub configured over the API"
			kill -KILL $vmm 2>/dev/null
			return 1
		fi
		sleep 1
	done
	echo "ok   the guest read share A through the hub PUT before start"
	want 409 PUT /fs-hub/hub '{"shared_dir": "'"$w/hub"'"}' || return 1
	want 200 GET / || return 1
	case $API_BODY in *'"state":"Running"'*) ;; *) echo "GET / after start: $API_BODY"; return 1 ;; esac
	case $API_BODY in *'"tag":"apishare"'*) ;; *) echo "GET / lacks the share: $API_BODY"; return 1 ;; esac
	case $API_BODY in *'"fs-hub":[{"tag":"hub"'*) ;; *) echo "GET / lacks the hub: $API_BODY"; return 1 ;; esac
	want 409 PUT /machine-config '{"vcpu_count": 2}' || return 1
	want 204 PUT /actions '{"action_type": "SendCtrlAltDel"}' || return 1
	wait $vmm
	rc=$?
	tr -d '\r' <"$w/console.raw" >"$GUEST_LOG"
	[ $rc -eq 0 ] || { echo "after SendCtrlAltDel the VMM exited $rc, want 0"; return 1; }
	grep -q '^STAINLESS-GUEST-CTRLALTDEL$' "$GUEST_LOG" ||
		{ echo "the guest's init never saw Ctrl+Alt+Del ($(tail -n 1 "$GUEST_LOG"))"; return 1; }
	echo "ok   the guest's init saw Ctrl+Alt+Del and rebooted cleanly"
	grep -q 'serio: i8042 KBD port at 0x60,0x64 irq 1' "$GUEST_LOG" &&
		echo "ok   the guest found the i8042 keyboard port"
	grep -q 'i8042:.*\(timeout\|giving up\)' "$GUEST_LOG" &&
		{ echo "the guest's i8042 probe complained: $(grep 'i8042' "$GUEST_LOG" | head -n 3)"; return 1; }
	[ ! -e "$w/api.sock" ] || { echo "the socket file is left behind"; return 1; }
	echo "api: configured over the socket with curl, the guest read the share and a hub's, Running, 409 after start, SendCtrlAltDel -> the guest's init rebooted, exit 0 ($(( $(date +%s) - t0 ))s)"
}

case_guest() {
	mkdir -p /mnt/api
	mount -t virtiofs apishare /mnt/api || fail "mount -t virtiofs apishare failed"
	echo "API-SHARE-READ $(cat /mnt/api/marker)"
	mkdir -p /mnt/hub
	mount -t virtiofs hub /mnt/hub || fail "mount -t virtiofs hub failed"
	# The host attaches A after it saw the line above; the guest polls.
	i=0
	while [ ! -r /mnt/hub/A/marker ] && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
	echo "API-HUB-READ $(cat /mnt/hub/A/marker)"
	# The host ends this VM with SendCtrlAltDel.
	sleep 600
}
