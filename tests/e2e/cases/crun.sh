# SPDX-License-Identifier: GPL-2.0-only
# crun: Debian's crun runs busybox bundles annotated
# run.oci.handler=stainless through the handler plugin (dist/crun/), each
# container's process becoming the process of a microVM (stainless exec)
# whose root is the container's root:
#   - crun run: the process prints its kernel's release, the guest's (not
#     this test host's), reads a file of a bind mount and writes one that
#     the test host then finds, and exits 3: crun run exits 3;
#   - crun kill: a process that traps SIGTERM and sleeps gets the signal
#     in the guest (it prints so and exits 7, which crun run returns);
#   - crun exec into it is refused, saying why;
#   - crun create + start + delete: the process's output arrives, the
#     container stops, delete removes it from crun list;
#   - a process.user of 1000:1000 is 1000:1000 in the guest, sees the
#     rootfs's owners as they are (root's /etc, nobody's 65534 directory),
#     cannot write root's /etc, and a file it makes in the bind mount is
#     1000:1000 on the test host: the VMM's user namespace maps all the
#     container's ids to themselves;
#   - the seccomp log pass of the VMM inside the container: crun gets
#     STAINLESS_CRUN_SECCOMP=log, the VMM runs with --seccomp=log (its
#     command line says so) and any seccomp audit record of a stainless
#     binary while the case ran fails it (host-run's pass sees only its
#     own binary, not the tools directory's copy).
# Needs crun, the plugin and its tools directory in the test host
# (guest-images/build-testhost packs them when make built the plugin) and
# stainless exec in the binary.
CASE_TIMEOUT=600
# Of podman's default set, what stainless's sandbox needs in a container run
# as root: SETFCAP to map root into its user namespace (user_namespaces(7)),
# SETUID/SETGID to write the maps; KILL for the signals.
# Ambient too: a process.user other than root keeps them across the handler's execve.
CRUN_CAPS='"CAP_KILL", "CAP_SETFCAP", "CAP_SETUID", "CAP_SETGID"'

crun_config() { # BUNDLE ARGS_JSON [UID]: a busybox bundle's config.json
	cat >"$1/config.json" <<EOF
{"ociVersion": "1.0.0",
 "annotations": {"run.oci.handler": "stainless"},
 "root": {"path": "rootfs"},
 "hostname": "crunbox",
 "process": {"terminal": false, "user": {"uid": ${3:-0}, "gid": ${3:-0}}, "cwd": "/",
  "args": $2,
  "env": ["PATH=/bin", "TERM=dumb"],
  "capabilities": {"bounding": [$CRUN_CAPS], "effective": [$CRUN_CAPS], "permitted": [$CRUN_CAPS],
   "inheritable": [$CRUN_CAPS], "ambient": [$CRUN_CAPS]},
  "noNewPrivileges": true},
 "mounts": [
  {"destination": "/proc", "type": "proc", "source": "proc"},
  {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
  {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
  {"destination": "/data", "type": "bind", "source": "$CASE_WORK/data", "options": ["rbind", "rw"]}],
 "linux": {
  "namespaces": [{"type": "pid"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}, {"type": "network"}],
  "devices": [{"path": "/dev/kvm", "type": "c", "major": 10, "minor": 232, "fileMode": 438}],
  "resources": {"devices": [{"allow": false, "access": "rwm"},
   {"allow": true, "type": "c", "major": 10, "minor": 232, "access": "rwm"}],
   "memory": {"limit": 268435456}}}}
EOF
}

crun_bundle() { # NAME ARGS_JSON [UID]: a root-owned busybox rootfs, /tmp 1777
	b=$CASE_WORK/$1
	mkdir -p "$b/rootfs/bin" "$b/rootfs/dev" "$b/rootfs/proc" "$b/rootfs/sys" \
		"$b/rootfs/tmp" "$b/rootfs/data" "$b/rootfs/etc"
	chmod 1777 "$b/rootfs/tmp"
	cp /bin/busybox "$b/rootfs/bin/busybox"
	for a in sh cat echo uname sleep id stat touch; do ln -sf busybox "$b/rootfs/bin/$a"; done
	crun_config "$b" "$2" "${3:-}"
}

# The seccomp audit records of any stainless binary since mark $1.
crun_audit() {
	dmesg | sed -n "/$1/,\$p" | grep 'type=1326' | grep 'exe="[^"]*stainless"'
}

# Waits (up to $2 s) for crun to list container $1 as $3.
crun_wait_state() {
	n=0
	while [ $n -lt "$2" ]; do
		crun state "$1" 2>/dev/null | grep -q "\"status\": \"$3\"" && return 0
		sleep 1; n=$((n + 1))
	done
	return 1
}

case_host() {
	command -v crun >/dev/null 2>&1 || { echo "no crun in the test host (make crun-handler before the e2e run)"; return 77; }
	hdir=$(ls -d /usr/lib/*/crun/handlers 2>/dev/null | head -n 1)
	[ -f "$hdir/stainless.so" ] || { echo "no stainless crun plugin in the test host"; return 77; }
	crun --version | grep -q '+STAINLESS' || { echo "crun does not list +STAINLESS"; return 1; }
	"$STAINLESS" exec --help >/dev/null 2>&1 || { echo "stainless exec not built"; return 77; }
	grep -q '^[^ ]* /sys/fs/cgroup cgroup2 ' /proc/mounts ||
		{ sed -n '/cgroup/p' /proc/mounts; echo "no cgroup v2 on /sys/fs/cgroup (guest-images/testhost-init mounts it)"; return 1; }
	mkdir -p "$CASE_WORK/data"
	echo "from the test host" >"$CASE_WORK/data/in"
	host_release=$(uname -r)
	mark=
	if [ "${E2E_SECCOMP:-kill}" = log ]; then
		mark="stainless-e2e-crun-$$-$(date +%s)"
		echo "$mark" >/dev/kmsg
		export STAINLESS_CRUN_SECCOMP=log
	else
		echo "note: no seccomp log pass here (E2E_SECCOMP=${E2E_SECCOMP:-kill})"
	fi

	# run: the guest's release, the bind mount both ways, exit status 3.
	crun_bundle run '["sh", "-c", "echo release=$(uname -r); cat /data/in; echo from the guest >/data/out; exit 3"]'
	(cd "$CASE_WORK/run" && timeout 240 crun run crun-run) >"$CASE_WORK/run.out" 2>&1
	rc=$?
	cat "$CASE_WORK/run.out"
	rel=$(tr -d '\r' <"$CASE_WORK/run.out" | sed -n 's/.*release=//p')
	[ -n "$rel" ] || { echo "crun run: the process printed no release (status $rc)"; return 1; }
	[ "$rel" != "$host_release" ] || { echo "crun run: release $rel is the test host's, not a guest's"; return 1; }
	tr -d '\r' <"$CASE_WORK/run.out" | grep -q 'from the test host' || { echo "crun run: the bind mount's file was not read"; return 1; }
	[ "$(cat "$CASE_WORK/data/out" 2>/dev/null)" = "from the guest" ] ||
		{ echo "crun run: the guest's write to the bind mount did not reach the test host"; return 1; }
	[ $rc -eq 3 ] || { echo "crun run: exit status $rc, want 3"; return 1; }
	echo "ok   crun run: guest release $rel (test host $host_release), bind mount read and written, status 3"

	# kill: SIGTERM reaches the guest's process; exec is refused meanwhile.
	crun_bundle kill '["sh", "-c", "trap \"echo got SIGTERM; exit 7\" TERM; echo ready; while :; do sleep 1; done"]'
	(cd "$CASE_WORK/kill" && timeout 240 crun run crun-kill) >"$CASE_WORK/kill.out" 2>&1 &
	pid=$!
	n=0
	while ! grep -q 'ready' "$CASE_WORK/kill.out" && [ $n -lt 180 ]; do sleep 1; n=$((n + 1)); done
	grep -q 'ready' "$CASE_WORK/kill.out" || { cat "$CASE_WORK/kill.out"; kill "$pid"; echo "crun kill: the guest never said ready"; return 1; }
	if [ -n "$mark" ]; then
		grep -l -e '--seccomp=lo[g]' /proc/[0-9]*/cmdline 2>/dev/null | grep -q . ||
			{ crun kill crun-kill KILL; echo "the container's VMM does not run with --seccomp=log"; return 1; }
		echo "ok   the container's VMM runs with --seccomp=log"
	fi
	crun exec crun-kill sh -c true >"$CASE_WORK/exec.out" 2>&1
	erc=$?
	cat "$CASE_WORK/exec.out"
	[ $erc -ne 0 ] && grep -q 'crun exec is not supported' "$CASE_WORK/exec.out" ||
		{ crun kill crun-kill KILL; echo "crun exec: status $erc, not refused with a reason"; return 1; }
	crun kill crun-kill TERM || { echo "crun kill failed"; return 1; }
	wait "$pid"
	rc=$?
	cat "$CASE_WORK/kill.out"
	grep -q 'got SIGTERM' "$CASE_WORK/kill.out" && [ $rc -eq 7 ] ||
		{ echo "crun kill: the guest's process did not get SIGTERM (status $rc)"; return 1; }
	echo "ok   crun kill: SIGTERM reached the guest's process (status 7); crun exec refused"

	# create + start + delete.
	crun_bundle cs '["sh", "-c", "echo started in $(uname -r)"]'
	(cd "$CASE_WORK/cs" && crun create crun-cs) >"$CASE_WORK/cs.out" 2>&1 ||
		{ cat "$CASE_WORK/cs.out"; echo "crun create failed"; return 1; }
	crun_wait_state crun-cs 10 created || { echo "crun create: not listed as created"; return 1; }
	crun start crun-cs || { echo "crun start failed"; return 1; }
	crun_wait_state crun-cs 240 stopped || { echo "crun start: the container never stopped"; return 1; }
	tr -d '\r' <"$CASE_WORK/cs.out" | grep -q "started in $rel" ||
		{ cat "$CASE_WORK/cs.out"; echo "crun create+start: no output from the guest"; return 1; }
	crun delete crun-cs || { echo "crun delete failed"; return 1; }
	! crun list 2>/dev/null | grep -q crun-cs || { echo "crun delete: still listed"; return 1; }
	echo "ok   crun create+start+delete"

	# A non-root user and a rootfs of several owners.
	mkdir -p "$CASE_WORK/data/u"
	chown 1000:1000 "$CASE_WORK/data/u"
	crun_bundle user '["sh", "-c", "echo ids=$(id -u):$(id -g); echo owners=$(stat -c %u:%g /etc /nobody); touch /etc/x 2>/dev/null && echo etc-writable; echo mine >/data/u/made"]' 1000
	mkdir -p "$CASE_WORK/user/rootfs/nobody"
	chown 65534:65534 "$CASE_WORK/user/rootfs/nobody"
	(cd "$CASE_WORK/user" && timeout 240 crun run crun-user) >"$CASE_WORK/user.out" 2>&1
	rc=$?
	cat "$CASE_WORK/user.out"
	out=$(tr -d '\r' <"$CASE_WORK/user.out")
	echo "$out" | grep -qx 'ids=1000:1000' || { echo "user: the guest's process is not 1000:1000 (status $rc)"; return 1; }
	echo "$out" | grep -qx 'owners=0:0 65534:65534' || { echo "user: the guest does not see the rootfs's owners"; return 1; }
	! echo "$out" | grep -q etc-writable || { echo "user: uid 1000 wrote root's /etc"; return 1; }
	[ "$(stat -c %u:%g "$CASE_WORK/data/u/made" 2>/dev/null)" = 1000:1000 ] ||
		{ ls -ln "$CASE_WORK/data/u"; echo "user: the file it made is not 1000:1000 on the test host"; return 1; }
	[ $rc -eq 0 ] || { echo "user: crun run exited $rc"; return 1; }
	echo "ok   user 1000:1000: ids, the rootfs's owners (0:0, 65534:65534), root's /etc refused, its file 1000:1000 on the host"

	if [ -n "$mark" ]; then
		recs=$(crun_audit "$mark")
		[ -z "$recs" ] || { echo "$recs"; echo "$(echo "$recs" | wc -l) seccomp audit records of the container's VMM"; return 1; }
		echo "ok   seccomp log pass: no audit record of the container's VMM"
	fi
	echo "crun: run, kill, exec refusal, create/start/delete, user 1000 with the rootfs's owners, through the stainless handler"
}
