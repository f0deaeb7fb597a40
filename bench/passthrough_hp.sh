#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prints the path of libfuse's example/passthrough_hp, building it first if
# needed: the comparison point of bench-fuse. The source comes from Debian's
# fuse3 source package (the version matching the installed libfuse3-dev when
# the archive still has it), fetched with a private apt configuration so
# the system's sources are untouched, and is unpacked and built in the cache
# directory -- never in the work tree: fuse3 is not ours to ship.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=$("$here/../scripts/cache-dir")/passthrough_hp
suite=${DEBIAN_SUITE:-bookworm}
bin=$cache/passthrough_hp
# What libfuse's meson would put in config.h on Linux with glibc: without
# HAVE_UTIMENSAT the example answers every utimes (tar -x, cp -p) with
# EOPNOTSUPP. A binary built with other flags is rebuilt.
defs="-DHAVE_UTIMENSAT -DHAVE_POSIX_FALLOCATE -DHAVE_SETXATTR"
[ -x "$bin" ] && [ "$(cat "$bin.defs" 2>/dev/null)" = "$defs" ] && { echo "$bin"; exit 0; }

command -v g++ >/dev/null || { echo "passthrough_hp: g++ missing" >&2; exit 1; }
pkg-config --exists fuse3 || { echo "passthrough_hp: libfuse3-dev missing" >&2; exit 1; }
# The source is fetched once; a rebuild reuses it.
if [ ! -f "$cache/src/example/passthrough_hp.cc" ]; then
	mkdir -p "$cache/apt/lists/partial" "$cache/apt/sources"
	echo "deb-src http://deb.debian.org/debian $suite main" >"$cache/apt/sources/src.list"
	apt="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$cache/apt/sources
	     -o Dir::State::Lists=$cache/apt/lists -o APT::Sandbox::User=root"
	# shellcheck disable=SC2086 # $apt is a list of options
	(cd "$cache" && timeout 300 apt-get -qq $apt update >&2 &&
		timeout 300 apt-get -qq $apt source --download-only fuse3 >&2) ||
		{ echo "passthrough_hp: could not fetch Debian's fuse3 source" >&2; exit 1; }
	orig=$(ls "$cache"/fuse3_*.orig.tar.* | head -n 1)
	rm -rf "$cache/src" && mkdir -p "$cache/src"
	tar -xf "$orig" -C "$cache/src" --strip-components=1
fi
# The example builds on its own against the installed library (its
# cxxopts.hpp sits beside it); no meson: $defs stand in for config.h.
# shellcheck disable=SC2086 # $defs is a list of options
timeout 600 g++ -O2 -std=c++17 $defs $(pkg-config --cflags fuse3) -o "$bin.tmp" \
	"$cache/src/example/passthrough_hp.cc" $(pkg-config --libs fuse3) -lpthread >&2
echo "$defs" >"$bin.defs"
mv "$bin.tmp" "$bin"
echo "$bin"
