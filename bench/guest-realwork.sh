# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# bench-realwork's workload for bench/guest-init (/bench/workload.sh in the
# guest): the host part's whole jobs (bench/realwork.sh) on a smaller tree,
# /rw/tree.tar, with its repository's .git in /rw/git.tar, both in the
# initramfs. Every mount works in a folder of its own name on the share
# (all the VMM's devices serve one host folder). Before every run the
# mount is unmounted and mounted again: a cold client cache (the bench
# kernel has no /proc/sys to drop caches with). Wall time from /proc/uptime
# (10 ms). Prints
#   GUESTFIO vmm= dev= round= job= wall_s= out=
# with out the job's count (find, du, grep, git) or ok. Reads bench.grep.
# make is not among the jobs: gcc, binutils and the headers are not packed.
pattern=$(arg bench.grep virtio)
tree=$(tar -tf /rw/tree.tar | head -n 1)
tree=${tree%%/*}

workload_ready() { # NAME
	mkdir -p "/mnt/$1/$1" 2>/dev/null || { echo "cannot mkdir in the share"; return 1; }
	[ -f /rw/tree.tar ] || { echo "no /rw/tree.tar in the initramfs"; return 1; }
}

workload_prepare() { # JOB NAME: untimed, through the mount
	rw_dir=/mnt/$2/$2
	case $1 in
	untar) rm -rf "${rw_dir:?}/$tree" ;;
	git)
		tar -xf /rw/git.tar -C "$rw_dir/$tree" &&
			git -c safe.directory='*' -C "$rw_dir/$tree" update-index -q --refresh >/dev/null
		git -c safe.directory='*' -C "$rw_dir/$tree" status --porcelain >/dev/null ;;
	esac
}

rw_job() { # JOB DIR
	case $1 in
	untar) tar -xf /rw/tree.tar -C "$2" && sync && echo ok ;;
	find) find "$2/$tree" | wc -l ;;
	du) du -s "$2/$tree" | cut -f1 ;;
	grep) grep -rF -- "$pattern" "$2/$tree" | wc -l ;;
	git) git -c safe.directory='*' -C "$2/$tree" status --porcelain | wc -l ;;
	rm) rm -rf "${2:?}/$tree" && sync && echo ok ;;
	esac
}

workload_run() { # JOB NAME
	sync
	if ! remount "$2"; then
		echo "GUESTFIO-FAIL vmm=$vmm dev=$2 job=$1 cannot mount it again: $err"
		return 0
	fi
	rw_t0=$(cut -d' ' -f1 /proc/uptime)
	rw_out=$(rw_job "$1" "/mnt/$2/$2" 2>/tmp/rw.err)
	rw_t1=$(cut -d' ' -f1 /proc/uptime)
	if [ -z "$rw_out" ]; then
		echo "GUESTFIO-FAIL vmm=$vmm dev=$2 job=$1 $(tail -n 2 /tmp/rw.err | tr '\n' ' ' | cut -c1-200)"
		return 0
	fi
	echo "GUESTFIO vmm=$vmm dev=$2 round=$round job=$1 wall_s=$(awk -v a="$rw_t0" -v b="$rw_t1" 'BEGIN { printf "%.2f", b - a }') out=$(echo $rw_out)"
}
