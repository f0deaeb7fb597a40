# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# bench-guest's workload for bench/guest-init (/bench/workload.sh in the
# guest): the seed fio jobs (/fio-jobs/J.job) on a share holding the host's
# fio-file1. Reads bench.size=SIZE and bench.runtime=SECONDS; prints
#   GUESTFIO vmm= dev= round= job= iops= kib_s= clat_us= err=
size=$(arg bench.size 64M) runtime=$(arg bench.runtime 5)

workload_ready() { # NAME
	[ -s "/mnt/$1/fio-file1" ] || { echo "no fio-file1 in the share"; return 1; }
}

workload_prepare() { :; }

workload_run() { # JOB NAME
	job=$1 name=$2
	# The seeds' harness at 4k as bench-fuse runs it: direct=1 on every
	# job, psync at QD1 whatever iodepth says, the host's file reused
	# (never laid out through the share). Terse v3: 5 error, 6/7/8 read
	# KiB, KiB/s, IOPS, 16 read clat mean (us); 47/48/49 and 57 the same
	# for writes.
	fio --directory="/mnt/$name" --runtime="$runtime" --time_based \
		--iodepth=16 --size="$size" --direct=1 --blocksize=4K \
		--output-format=terse "/fio-jobs/$job.job" >/tmp/fio.out 2>/tmp/fio.err
	line=$(grep '^3;' /tmp/fio.out | head -n 1)
	if [ -z "$line" ]; then
		echo "GUESTFIO-FAIL vmm=$vmm dev=$name job=$job $(tail -n 2 /tmp/fio.err /tmp/fio.out | tr '\n' ' ' | cut -c1-200)"
		return 0
	fi
	echo "$line" | awk -F';' -v v="$vmm" -v d="$name" -v r="$round" -v j="$job" \
		'{ rio = $8; wio = $49; io = rio + wio
		   clat = io > 0 ? ($16 * rio + $57 * wio) / io : 0
		   printf "GUESTFIO vmm=%s dev=%s round=%s job=%s iops=%d kib_s=%d clat_us=%.1f err=%s\n", v, d, r, j, io, $7 + $48, clat, $5 }'
}
