# SPDX-License-Identifier: GPL-2.0-only
# Benchmark programs of bench-fuse and bench-9p (bench/NAME.c, print figures).
BENCHES += fuse_meta p9_load
# bench-boot's meter: start a VMM, time the guest's first marker.
BENCHES += bootmeter
# bench-vhost's driver: our own vhost-user-fs frontend (tests/vhost, shared
# with the host tests) sending FUSE requests to any backend.
BENCHES += vu_load
# (linked in by the Makefile: a rule here would become the default goal)
VU_FRONTEND_SRCS := tests/vhost/vu_frontend.c tests/vhost/vu_fuse.c tests/vhost/vu_shmem.c
