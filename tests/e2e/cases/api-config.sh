# SPDX-License-Identifier: GPL-2.0-only
# api-config: `stainless run --config-file` boots the whole-VM example of
# docs/api.md as it stands there (so the page stays true): its boot source,
# machine config, virtio-fs share, fs-hub and rng. Only what differs on this host
# is rewritten: the guest kernel and initramfs paths when they are not
# the test host's /guest/ ones, and host-run's noxsave when this KVM needs
# it. The guest mounts the share, reads the host's file, mounts the hub
# and finds its root empty (nothing attached: the file has no socket to
# attach through), and reboots; the VMM exits 0.
CASE_TIMEOUT=240

case_host() {
	w=$CASE_WORK
	doc=$E2E_DIR/docs/api.md
	[ -f "$doc" ] || doc=$E2E_DIR/../../docs/api.md
	[ -f "$doc" ] || { echo "docs/api.md is not in this test host"; return 1; }
	awk '/<!-- end config-file-example -->/ { on = 0 } on && !/^```/ { print }
	     /<!-- config-file-example -->/ { on = 1 }' "$doc" >"$w/vm.json"
	grep -q '"boot-source"' "$w/vm.json" || { echo "no config file example in $doc"; return 1; }
	extra=
	case $GUEST_BASE_CMDLINE in *noxsave*) extra=" noxsave" ;; esac
	sed -i -e "s#\"/guest/bzImage\"#\"$GUEST_KERNEL\"#" \
		-e "s#\"/guest/initramfs.cpio.gz\"#\"$GUEST_INITRD\"#" \
		-e "s#stainless.case=api-config#&$extra#" "$w/vm.json"
	share=$(sed -n 's/.*"tag": *"docs".*"shared_dir": *"\([^"]*\)".*/\1/p' "$w/vm.json")
	[ -n "$share" ] || { echo "the example has no share"; return 1; }
	hub=$(sed -n 's/.*"tag": *"pod".*"shared_dir": *"\([^"]*\)".*/\1/p' "$w/vm.json")
	[ -n "$hub" ] || { echo "the example has no fs-hub"; return 1; }
	mkdir -p "$share" "$hub/not-attached"
	echo "written by the host for api-config" >"$share/host.txt"
	GUEST_LOG=$w/console.log
	t0=$(date +%s)
	timeout -s KILL "$CASE_TIMEOUT" "$STAINLESS" run --config-file "$w/vm.json" \
		</dev/null >"$w/console.raw" 2>&1
	GUEST_RC=$?
	GUEST_SECS=$(( $(date +%s) - t0 ))
	tr -d '\r' <"$w/console.raw" >"$GUEST_LOG"
	rm -rf "$share" "$hub"
	check_guest || return 1
	echo "api-config: docs/api.md's config file booted, the guest read its share, exit 0 (${GUEST_SECS}s)"
}

case_guest() {
	mkdir -p /mnt/docs
	mount -t virtiofs docs /mnt/docs || fail "mount -t virtiofs docs failed"
	[ "$(cat /mnt/docs/host.txt)" = "written by the host for api-config" ] ||
		fail "host.txt does not read back"
	grep -q virtio_rng /sys/class/misc/hw_random/rng_current 2>/dev/null || fail "no virtio_rng: the example's rng is missing"
	umount /mnt/docs || fail "umount failed"
	mkdir -p /mnt/pod
	mount -t virtiofs pod /mnt/pod || fail "mount -t virtiofs pod (the example's fs-hub) failed"
	[ -z "$(ls -A /mnt/pod)" ] || fail "the hub's root lists $(ls -A /mnt/pod) with nothing attached"
	umount /mnt/pod || fail "umount of the hub failed"
}
