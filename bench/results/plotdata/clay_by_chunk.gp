set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/wt/bench/results/clay_by_chunk.png'
$d1 << EOD
4096 7.1015
65536 6.2566
1048576 9.2692
EOD
$d2 << EOD
4096 2.9356
65536 6.0852
1048576 6.9274
EOD
$d3 << EOD
4096 6.7134
65536 7.6075
1048576 9.6454
EOD
$d4 << EOD
4096 2.8531
65536 5.8365
1048576 6.0466
EOD
$d5 << EOD
4096 10.7025
65536 13.2005
1048576 16.2206
EOD
$d6 << EOD
4096 1.5354
65536 1.4718
1048576 2.0847
EOD
$d7 << EOD
4096 0.6384
65536 1.3917
1048576 1.6996
EOD
$d8 << EOD
4096 1.5860
65536 2.1892
1048576 2.2601
EOD
$d9 << EOD
4096 0.5552
65536 1.4169
1048576 1.2689
EOD
$d10 << EOD
4096 3.4118
65536 3.3495
1048576 4.5005
EOD
$d11 << EOD
4096 1.1122
65536 2.7116
1048576 3.7197
EOD
$d12 << EOD
4096 2.6168
65536 4.0497
1048576 4.5448
EOD
$d13 << EOD
4096 1.1071
65536 2.6282
1048576 2.7484
EOD
$d14 << EOD
4096 2.1723
65536 2.9869
1048576 4.5817
EOD
$d15 << EOD
4096 0.9421
65536 2.8670
1048576 3.9344
EOD
$d16 << EOD
4096 2.1840
65536 4.1524
1048576 4.5831
EOD
$d17 << EOD
4096 0.7130
65536 3.2237
1048576 3.0290
EOD
set grid
set key outside right top font 'sans,7' spacing 0.9
set ylabel 'GB/s (10^9 bytes/s)'
set yrange [0:*]
set logscale x 2
set xlabel 'chunk size'
set xtics ('4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576)
set xrange [3000:1500000]
set multiplot layout 2,2 title 'clay: throughput, against chunk size at 4+2; solid warm, dashed cold, dotted raw baseline' font 'sans,12'
set title 'encode'
plot $d1 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure 4+2 warm', \
     $d2 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure 4+2 cold', \
     $d3 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa 4+2 warm', \
     $d4 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa 4+2 cold', \
     $d5 using 1:2 with lines dt 3 lw 2 lc rgb '#2ca02c' title 'isa reed_sol_van (plugin) 4+2 warm'
set title 'decode, 1 erasure'
plot $d6 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure 4+2 warm', \
     $d7 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure 4+2 cold', \
     $d8 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa 4+2 warm', \
     $d9 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa 4+2 cold'
set title 'decode, 2 erasures'
plot $d10 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure 4+2 warm', \
     $d11 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure 4+2 cold', \
     $d12 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa 4+2 warm', \
     $d13 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa 4+2 cold'
set title 'repair of one chunk'
plot $d14 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure 4+2 warm', \
     $d15 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure 4+2 cold', \
     $d16 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa 4+2 warm', \
     $d17 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa 4+2 cold'
unset multiplot
