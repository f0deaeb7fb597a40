# SPDX-License-Identifier: GPL-2.0-only
# fs-mq: multi-queue virtio-fs with a 2-vCPU guest (Linux >= 6.11 maps each
# CPU to a request queue). A share with queues=2 shows the guest hiprio
# and two request queues in /sys/fs/virtiofs/N/mqs/, one CPU each; a
# second share without queues= gets one request queue per vCPU, two here.
# The whole share battery runs over the queues=2 share (cache=never,
# xattr), then two readers pinned to CPU 0 and CPU 1 (taskset) read their
# own file at the same time, 4 KiB at a time, and check its checksum; the
# host checks what the battery left and, from `stainless run --stats`,
# that BOTH request queues carried at least the pinned readers' reads.
. "${E2E_DIR:-}/cases/share-lib.inc"
CASE_ARGS="--cpus 2 --stats --fs mq=$CASE_WORK/share,queues=2,cache=never,xattr --fs mqdef=$CASE_WORK/share2"
CASE_CPUS=2
CASE_TIMEOUT=420

# Each pinned reader reads its 4 MiB file this many times in 4 KiB reads.
MQ_FILE_BLOCKS=1024
MQ_ROUNDS=3

case_setup() {
	share_setup "$CASE_WORK/share" xattr && holder_start "$CASE_WORK/share" || return 1
	for i in 0 1; do
		head -c $((MQ_FILE_BLOCKS * 4096)) /dev/urandom >"$CASE_WORK/share/load$i" || return 1
		md5sum <"$CASE_WORK/share/load$i" | cut -d' ' -f1 >"$CASE_WORK/share/load$i.md5"
	done
	mkdir -p "$CASE_WORK/share2"
}

case_cleanup() {
	share_cleanup "$CASE_WORK/share"
}

# mq_sysfs TAG: checks the guest's view of TAG's queues (6.12's sysfs).
mq_sysfs() {
	dir=""
	for d in /sys/fs/virtiofs/*; do
		[ "$(cat "$d/tag" 2>/dev/null)" = "$1" ] && dir=$d
	done
	[ -n "$dir" ] || fail "no /sys/fs/virtiofs/*/tag says $1"
	n=$(ls "$dir/mqs" | wc -l)
	[ "$n" -eq 3 ] || fail "$1: $n queues in $dir/mqs, want hiprio + 2 request queues"
	for q in 0 1 2; do
		echo "$1 mqs/$q: $(cat "$dir/mqs/$q/name") cpus $(cat "$dir/mqs/$q/cpu_list")"
	done
	[ "$(cat "$dir/mqs/0/name")" = hiprio ] || fail "$1: mqs/0 is not hiprio"
	[ "$(cat "$dir/mqs/1/name")" = requests.0 ] && [ "$(cat "$dir/mqs/2/name")" = requests.1 ] ||
		fail "$1: mqs/1 and mqs/2 are not requests.0 and requests.1"
	[ "$(cat "$dir/mqs/1/cpu_list")" = 0 ] && [ "$(cat "$dir/mqs/2/cpu_list")" = 1 ] ||
		fail "$1: request queues serve cpus '$(cat "$dir/mqs/1/cpu_list")' and '$(cat "$dir/mqs/2/cpu_list")', want 0 and 1"
}

# mq_reader CPU FILE: on CPU only, reads FILE MQ_ROUNDS times in 4 KiB
# reads and compares each checksum with the host's.
mq_reader() {
	want=$(cat "$2.md5")
	r=0
	while [ $r -lt $MQ_ROUNDS ]; do
		got=$(taskset -c "$1" dd if="$2" bs=4096 2>/dev/null | md5sum | cut -d' ' -f1)
		[ "$got" = "$want" ] || { echo "cpu $1: $2 read back as $got, want $want"; return 1; }
		r=$((r + 1))
	done
}

case_guest() {
	mkdir -p /mnt/mq /mnt/mqdef
	mount -t virtiofs mq /mnt/mq || fail "mount -t virtiofs mq failed"
	mount -t virtiofs mqdef /mnt/mqdef || fail "mount -t virtiofs mqdef failed"
	mq_sysfs mq
	mq_sysfs mqdef
	[ "$(cat /mnt/mq/host.txt)" = "from the host" ] || fail "host.txt does not read back"
	battery /mnt/mq virtiofs --xattr --mmap all
	mq_reader 0 /mnt/mq/load0 &
	p0=$!
	mq_reader 1 /mnt/mq/load1 &
	p1=$!
	wait $p0 || fail "the reader on cpu 0 failed"
	wait $p1 || fail "the reader on cpu 1 failed"
	umount /mnt/mqdef || fail "umount mqdef failed"
	umount /mnt/mq || fail "umount mq failed"
}

case_check() {
	share_check "$CASE_WORK/share" virtiofs --xattr --mmap || return 1
	line=$(grep '^stainless run: stats: virtio-fs tag=mq ' "$GUEST_LOG")
	[ -n "$line" ] || { echo "no --stats line for the mq share"; return 1; }
	echo "$line"
	grep '^stainless run: stats: virtio-fs tag=mqdef ' "$GUEST_LOG"
	q1=$(echo "$line" | sed -n 's/.* q1=\([0-9]*\).*/\1/p')
	q2=$(echo "$line" | sed -n 's/.* q2=\([0-9]*\).*/\1/p')
	min=$((MQ_FILE_BLOCKS * MQ_ROUNDS))
	[ -n "$q1" ] && [ -n "$q2" ] || { echo "cannot read q1/q2 from: $line"; return 1; }
	[ "$q1" -ge "$min" ] && [ "$q2" -ge "$min" ] ||
		{ echo "request queues carried q1=$q1 q2=$q2 requests, want >= $min each"; return 1; }
	echo "fs-mq: guest sees hiprio + 2 request queues (cpu 0, cpu 1) for queues=2 and by default; battery passed; pinned readers on both CPUs; requests per queue: ${line#*tag=mq } (${GUEST_SECS}s)"
}
