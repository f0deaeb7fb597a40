#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The integration pages give exact lines; the tests that run those
# clients must run the same ones. Each row: a page, a fragment of its
# lines, and the test (or file) that must hold the same fragment. A
# fragment that leaves either is a page that no longer says what was
# tested.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
bad=0
check() { # PAGE FRAGMENT FILE
	grep -qF -- "$2" "$ROOT/$1" || { echo "FAIL: $1 no longer says: $2"; bad=1; return; }
	grep -qF -- "$2" "$ROOT/$3" || { echo "FAIL: $3 does not run what $1 says: $2"; bad=1; return; }
	echo "ok: $1 = $3: $2"
}
check docs/qemu.md "-object memory-backend-memfd,id=mem,size=512M,share=on -numa node,memdev=mem" tests/host/vhost_user_qemu.sh
check docs/qemu.md "-device vhost-user-fs-pci,chardev=fs0,tag=share" tests/host/vhost_user_qemu.sh
check docs/qemu.md '"description": "stainless: a drop-in virtiofsd (vhost-user-fs)",' dist/qemu/50-stainless-virtiofsd.json.in
check docs/qemu.md '"binary": "/usr/libexec/stainless-virtiofsd"' tests/host/deb_package.sh
check docs/libvirt.md "<memoryBacking><source type='memfd'/><access mode='shared'/></memoryBacking>" tests/host/libvirt_virtiofs.sh
check docs/libvirt.md "<driver type='virtiofs'/>" tests/host/libvirt_virtiofs.sh
check docs/libvirt.md "<cache mode='always'/>" tests/host/libvirt_virtiofs.sh
check docs/libvirt.md "<lock posix='on' flock='on'/>" tests/host/libvirt_virtiofs.sh
check docs/libvirt.md "<thread_pool size='16'/>" tests/host/libvirt_virtiofs.sh
check docs/libvirt.md ",cache=always,xattr,flock,posix_lock --thread-pool-size=16" tests/host/libvirt_virtiofs.sh
check docs/kata.md "--syslog --cache=auto --shared-dir=" tests/host/vhost_user_kata.sh
check docs/kata.md "--thread-pool-size=1 --announce-submounts" tests/host/vhost_user_kata.sh
check docs/kata.md "--thread-pool-size=1 -o announce_submounts --xattr" tests/host/vhost_user_kata.sh
check docs/cloud-hypervisor.md "--socket-path=/run/fs.sock --shared-dir=/srv/share --cache=never" tests/unit/test_vhost_user_cli.c
[ $bad -eq 0 ] && echo "PASS: the integration pages say what the tests run"
exit $bad
