# SPDX-License-Identifier: GPL-2.0-only
# The look every bench-* plot shares: clustered histogram bars on a log
# y axis, key top left, horizontal grid. Each script loads this, then sets
# its own terminal, output, title and axis labels.
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set key top left
set grid ytics
