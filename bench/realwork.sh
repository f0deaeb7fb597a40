#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench-realwork: whole jobs on a share, because users feel jobs, not
# 4k requests. On the host, through every FUSE backend side by side (all
# mounted at once over their own directories of one private tmpfs):
#   st-never      stainless fuse-mount --cache never (the default)
#   st-auto       stainless fuse-mount --cache auto
#   pthp-nocache  libfuse's passthrough_hp --nocache (its thread pool)
#   pthp          passthrough_hp as it comes (entry/attr caching, keep_cache,
#                 writeback cache)
#   tmpfs         the share's own tmpfs, no FUSE (the ceiling)
# the jobs, one after another, on Debian's linux-source tree (~90,000
# files; BENCH_QUICK=1: stainless's own tree):
#   untar   tar -x of the tree (an uncompressed tar on the same tmpfs) + syncfs
#   find    find TREE | wc -l
#   du      du -s TREE
#   grep    grep -rF STRING TREE | wc -l (every byte read)
#   git     git status --porcelain in a repository of that tree (its .git,
#           made once in the cache, is laid into the untarred tree outside
#           the timing, and one untimed status through the mount settles
#           the index first: the steady state a developer sees)
#   rm      rm -rf TREE + syncfs
#   make    make -j2 of stainless's tree at HEAD (git archive) + syncfs
# Each round runs each job on every backend (order rotating per round)
# before the next job; the kernel's caches are dropped before each job
# (sync; drop_caches; nothing but a backend's own run touches its client
# cache after that), so every backend starts each job from a cold cache.
# Per run: wall seconds, and the server's CPU seconds (utime+stime of the
# serving process, all its threads, /proc/PID/stat).
# Medians over rounds, ratios against passthrough_hp's better mode.
# The guest part (bench/realwork-guest.inc) runs the same jobs, but make,
# on a smaller tree inside guests over stainless's virtio-fs, DAX and 9p
# and QEMU's virtiofsd and 9p.
#
# Raw results: docs/benchmarks/raw/realwork.{csv,meta} (bench/results.inc);
# the tables: docs/benchmarks/realwork.txt.
# Environment: O, ROUNDS (3), PARTS (host,guest), BACKENDS, GREP (the
# string, "virtio"), LINUX_SOURCE (a linux-source .tar.xz), OUT
# (docs/benchmarks), RW_GUEST_* (bench/realwork-guest.inc).
# BENCH_QUICK=1: a smoke run of seconds (stainless's tree, 1 round, host
# only) whose figures go to a scratch folder. A missing anchor or tool is
# a SKIP (77), never a failure. A benchmark prints figures; it judges nothing.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
. tests/host/server_pid.inc
. bench/fuse-backends.inc
. bench/results.inc
bench_paths
. bench/realwork-tree.inc
O=${O:-build}
case $O in /*) ;; *) O=$TOP/$O ;; esac
STAINLESS=${STAINLESS:-$O/stainless}
QUICK=${BENCH_QUICK:-}
ROUNDS=${ROUNDS:-$([ -n "$QUICK" ] && echo 1 || echo 3)}
PARTS=${PARTS:-$([ -n "$QUICK" ] && echo host || echo host,guest)}
BACKENDS=${BACKENDS:-st-never st-auto pthp-nocache pthp tmpfs}
JOBS="untar find du grep git rm make"
GREP=${GREP:-virtio}
export STAINLESS

say() { echo "realwork: $*" >&2; }
die() { say "$*"; exit 1; }
skip() { say "SKIP $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (mount(2) of FUSE and tmpfs, drop_caches)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -x "$STAINLESS" ] || die "build first: make O=$O all"
for t in git make gcc tar xz; do
	command -v $t >/dev/null || skip "$t missing (scripts/deps bench)"
done
case ,$PARTS, in *,host,*)
	PTHP=$(bench/passthrough_hp.sh) || skip "no passthrough_hp (the anchor): bench/passthrough_hp.sh failed" ;;
esac

CACHE=$(scripts/cache-dir)/realwork
mkdir -p "$CACHE"
T=$(mktemp -d /tmp/realwork.XXXXXX)
declare -A PID SPID MNT SRC
trap fuse_backends_down EXIT
trap 'exit 1' INT TERM HUP

# The make job's project, and the tree of the other jobs.
git archive --prefix=stainless-src/ HEAD >"$T/make.tar" || die "git archive HEAD failed"
# Quick: one object of it, whole builds take a minute on a busy machine.
MAKE_TARGET=
[ -z "$QUICK" ] || MAKE_TARGET=build/$(git ls-files 'fs/*.c' | head -n 1 | sed 's/\.c$/.o/')
if [ -n "$QUICK" ]; then
	git archive --prefix=tree/ HEAD >"$T/tree.tar" || die "git archive HEAD failed"
	TREE_TAR=$T/tree.tar
	GIT_TAR=$(tree_git "$TREE_TAR" "$T") || die "cannot commit the quick tree to git"
else
	TREE_TAR=$(tree_tar "$CACHE") ||
		skip "no Debian linux-source tarball in /usr/src (scripts/deps bench installs linux-source-6.12)"
	FULL_TAR=$TREE_TAR
	# passthrough_hp holds an O_PATH fd for every inode the kernel knows:
	# past RLIMIT_NOFILE's hard limit (20000 in some containers, and root
	# without CAP_SYS_RESOURCE cannot raise it) its lookups and creates
	# fail with EMFILE. Then the host part takes the top folders of
	# RW_HOST_DIRS (about 14,500 entries), and says so.
	entries=$(tar -tf "$TREE_TAR" | wc -l)
	if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt $((entries + 4096)) ]; then
		dirs=${RW_HOST_DIRS:-fs kernel mm net lib include block crypto security io_uring ipc init virt}
		TREE_TAR=$(tree_subset "$FULL_TAR" "$dirs" "$CACHE/host-$(echo $dirs | tr ' ' '_')-$(basename "$FULL_TAR")") ||
			die "cannot cut $dirs out of $FULL_TAR"
		SUBSET_WHY="RLIMIT_NOFILE hard limit $(ulimit -Hn) < $entries entries + 4096 (passthrough_hp keeps an fd per inode): host tree = $dirs of $(basename "$FULL_TAR"), $(tar -tf "$TREE_TAR" | wc -l) entries"
		say "$SUBSET_WHY"
	fi
	GIT_TAR=$(tree_git "$TREE_TAR" "$CACHE") || die "cannot commit $TREE_TAR to git"
fi
TREE=$(tar -tf "$TREE_TAR" | head -n 1)
TREE=${TREE%%/*}

# A part not run now keeps its rows of the last run (PARTS=guest after a
# host run, say), and says so.
KEPT=
if [ -f "$BENCH_RAW/realwork.csv" ] && [ -z "$QUICK" ]; then
	case ,$PARTS, in *,host,*) ;; *) KEPT="$KEPT host" ;; esac
	case ,$PARTS, in *,guest,*) ;; *) KEPT="$KEPT guest" ;; esac
	awk -F, -v k="$KEPT" 'NR > 1 && ((k ~ /guest/ && $1 ~ /^guest-/) || (k ~ /host/ && $1 !~ /^guest-/))' \
		"$BENCH_RAW/realwork.csv" >"$T/kept.csv"
	grep '^note=' "$BENCH_RAW/realwork.meta" |
		grep -E "^note=($(echo $KEPT | sed 's/ /|/g')):" >"$T/kept.meta"
fi
results_open realwork "Real work: untar, find, du, grep, git status, rm, make on a share" \
	"$(case ,$PARTS, in *,guest,*) echo nested ;; *) echo none ;; esac)"
# The judged systems are those of the parts run now (or kept): the suite
# takes a judged system without samples for broken benchmark code.
case ,$PARTS,$KEPT in *host*) judge="st-never st-auto" anchor="pthp-nocache|pthp" ;; *) judge= anchor= ;; esac
case ,$PARTS,$KEPT in *guest*) judge="$judge st-fs st-dax st-9p" anchor="${anchor:+$anchor|}qemu-vfsd|qemu-9p" ;; esac
results_meta anchor "$anchor"
results_meta judge "$judge"
results_meta note "host rows: jobs on $(basename "$TREE_TAR") through each FUSE backend; guest-* rows: the same jobs in a guest (bench/realwork-guest.inc)"
[ -z "${SUBSET_WHY:-}" ] || results_meta note "host: $SUBSET_WHY"
results_meta note "wall_s: the job's wall time; cpu_s: the serving process's utime+stime during it (host only)"
if [ -s "$T/kept.csv" ]; then
	cat "$T/kept.csv" >>"$RESULTS_CSV"
	sed 's/^note=/note=(kept from the last run) /' "$T/kept.meta" >>"$RESULTS_META"
fi

# csv_samples METRIC ROWPREFIX: ROW SYSTEM VALUE of the results so far,
# sorted for median_table.awk (ROW without the prefix).
csv_samples() {
	awk -F, -v m="$1" -v p="$2" 'NR > 1 && $3 == m && index($1, p) == 1 && (p != "" || $1 !~ /^guest-/) {
		print substr($1, length(p) + 1), $2, $6 }' "$RESULTS_CSV" | sort -k1,1 -k2,2 -k3,3g
}
table() { # METRIC PREFIX COLS ANCHOR RATIOS PAIRS
	csv_samples "$1" "$2" | awk -f bench/median_table.awk -v lower=1 -v fmt=%.2f \
		-v rows="${TABLE_ROWS:-$JOBS}" -v cols="$3" -v anchor="$4" -v ratios="$5" -v pairs="$6"
}

# shellcheck source=bench/realwork-host.inc
case ,$PARTS, in *,host,*) . bench/realwork-host.inc; realwork_host ;; esac
# shellcheck source=bench/realwork-guest.inc
case ,$PARTS, in *,guest,*) . bench/realwork-guest.inc; realwork_guest ;; esac
results_close
HOST_COLS=$BACKENDS
{
	echo "# realwork (make bench-realwork): whole jobs on a share; seconds, median over rounds, lower is better"
	sed -n 's/^\(date\|end\|commit\|machine\|kvm\|load_start\|load_end\|note\)=/# \1: /p' "$RESULTS_META"
	if grep -q '^[a-z]' <(tail -n +2 "$RESULTS_CSV" | grep -v '^guest-'); then
		echo
		echo "## host: wall seconds (anc = the faster passthrough_hp mode per job)"
		table wall_s "" "$HOST_COLS" "pthp-nocache pthp" "st-never st-auto tmpfs" \
			"never/nocache=st-never/pthp-nocache auto/pthp=st-auto/pthp"
		echo
		echo "## host: server CPU seconds (utime+stime of the serving process)"
		table cpu_s "" "$(echo $HOST_COLS | sed 's/ *tmpfs//')" "pthp-nocache pthp" "st-never st-auto" \
			"never/nocache=st-never/pthp-nocache auto/pthp=st-auto/pthp"
	fi
	[ -z "${GUEST_TEXT:-}" ] || echo "$GUEST_TEXT"
	[ -f "$T/found" ] && { echo; echo "# what each job found, per backend"; cat "$T/found"; }
	[ -f "$T/raw" ] && { echo; echo "# raw"; cat "$T/raw"; }
} >"$T/txt"
mkdir -p "$OUT" && cp "$T/txt" "$OUT/realwork.txt"
cat "$T/txt"
say "wrote $OUT/realwork.txt and $RESULTS_CSV"
