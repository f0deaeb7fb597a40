# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# bench-dax's workload for bench/guest-init (/bench/workload.sh in the
# guest), on a share bench/dax-inner.sh laid out: tree/ (many 4 KiB files),
# big (one large file) and mem/ (the files four guests read at once).
# Every job starts on a fresh mount (a cold guest cache; the host's tmpfs
# stays warm) and prints
#   GUESTFIO vmm= dev= round= job= wall_s= bytes=
#   walk     every file of tree/ read once (find | xargs cat)
#   bigread  big read once (cat)
#   memread  mem/ read once, then GUESTDAX-READ dev=, and the guest waits
#            there for its VMM to be measured and stopped
workload_ready() { # NAME
	[ -d "/mnt/$1/tree" ] && [ -s "/mnt/$1/big" ] || { echo "no tree/ and big in the share"; return 1; }
}

workload_prepare() { # JOB NAME: each job reads through a cold guest cache
	remount "$2" || echo "GUESTFIO-FAIL vmm=$vmm dev=$2 job=$1 remount failed"
}

dax_now() { cut -d' ' -f1 /proc/uptime; }

workload_run() { # JOB NAME
	job=$1 d=/mnt/$2
	t0=$(dax_now)
	case $job in
	walk) find "$d/tree" -type f | xargs cat >/dev/null ;;
	bigread) cat "$d/big" >/dev/null ;;
	memread) cat "$d"/mem/* >/dev/null ;;
	*) echo "GUESTFIO-FAIL vmm=$vmm dev=$2 job=$job no such job"; return 0 ;;
	esac
	rc=$?
	t1=$(dax_now)
	[ $rc -eq 0 ] || { echo "GUESTFIO-FAIL vmm=$vmm dev=$2 job=$job exit $rc"; return 0; }
	echo "GUESTFIO vmm=$vmm dev=$2 round=$round job=$job wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
	if [ "$job" = memread ]; then
		echo "GUESTDAX-READ dev=$2"
		while :; do sleep 3600; done
	fi
}
