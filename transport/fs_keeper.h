/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The keeper: lets a set of serving threads, each pinned to one CPU, sit in
 * the idle scheduling class while requests flow, and keeps them from
 * starving there.
 *
 * Why: when a server thread answers, the kernel wakes the caller, and the
 * scheduler puts a woken task on an idle CPU rather than a busy one. A
 * caller whose CPU is busy with the thread answering it moves to another
 * CPU, and from then on every request and answer crosses CPUs: on this
 * project's 2-vCPU hosts that wake-up is most of a FUSE round trip. A CPU
 * running only SCHED_IDLE tasks counts as idle, and a woken normal task
 * preempts them at once, so with the serving thread in the idle class the
 * caller stays, and caller and server take turns on one CPU.
 *
 * The risk: an idle-class thread barely runs beside any busy task on its
 * CPU. A watcher thread reads each thread's run delay (time runnable but
 * not running, /proc/thread-self/schedstat) every KEEPER_TICK_MS and puts
 * a thread that waited more than 1 ms of a tick in the normal class for a
 * second; after 100 ms without a request it puts every thread in the
 * normal class and sleeps until the next request. Leaving the idle class
 * needs CAP_SYS_NICE or an RLIMIT_NICE allowing nice 0 (sched(7)); without
 * either there is no keeper and the threads stay normal. Serving threads
 * give CAP_SYS_NICE up at their first request (fs_caps_limit), so the
 * watcher, which keeps it, moves them back.
 *
 *   struct fs_keeper *k = fs_keeper_start(n);  // NULL: no keeper, fine
 *   ... in serving thread i:  fs_keeper_enter(k, i, cpu); per request
 *                              fs_keeper_served(k, i);
 *   fs_keeper_stop(k);                          // before the threads end
 */
#ifndef STAINLESS_TRANSPORT_FS_KEEPER_H
#define STAINLESS_TRANSPORT_FS_KEEPER_H

#include <sched.h>

struct fs_keeper;

#define KEEPER_TICK_MS 4

/* A keeper for n threads, or NULL when the idle class cannot be used. */
struct fs_keeper *fs_keeper_start(unsigned n);

/*
 * Serving thread i (0 <= i < n), from itself: pins itself to cpu (-1:
 * leaves its affinity alone; pinning is best effort and happens with or
 * without a keeper) and puts itself in k's care, again after a leave.
 */
void fs_keeper_enter(struct fs_keeper *k, unsigned i, int cpu);

/*
 * Serving thread i, from itself, for a while: back to the normal class at
 * once, free to run on any CPU of `anywhere`, and left alone by the
 * watcher until it enters again. With or without a keeper.
 */
void fs_keeper_leave(struct fs_keeper *k, unsigned i, const cpu_set_t *anywhere);

/* Serving thread i took a request. Cheap; wakes a sleeping watcher. */
void fs_keeper_served(struct fs_keeper *k, unsigned i);

/* Stops the watcher and returns every thread to the normal class. */
void fs_keeper_stop(struct fs_keeper *k);

#endif
