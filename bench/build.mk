# SPDX-License-Identifier: GPL-2.0-only
# Benchmark programs of bench-fuse and bench-9p (bench/NAME.c, print figures).
BENCHES += fuse_meta p9_load
# bench-boot's meter: start a VMM, time the guest's first marker.
BENCHES += bootmeter
