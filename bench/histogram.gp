# SPDX-License-Identifier: GPL-2.0-only
# The look every bench/report plot shares: clustered bars at the median on
# a log y axis with whiskers from the rounds' min to max (each system's
# data is three columns: median, min, max), key outside, horizontal grid.
# bench/report.awk sets the terminal, output, title, axis labels (with
# units) and each system's colour (bench/colours.list).
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set errorbars 0.5
set logscale y
set key top left
set grid ytics
