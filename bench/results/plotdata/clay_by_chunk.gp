set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/main/bench/results/clay_by_chunk.png'
$d1 << EOD
4096 4.2306
65536 7.4191
1048576 7.8415
EOD
$d2 << EOD
4096 2.5761
65536 5.0240
1048576 5.5649
EOD
$d3 << EOD
4096 4.3258
65536 7.4661
1048576 7.8170
EOD
$d4 << EOD
4096 2.5542
65536 5.1323
1048576 5.3379
EOD
$d5 << EOD
4096 16.1583
65536 17.3369
1048576 17.5415
EOD
$d6 << EOD
4096 0.6737
65536 1.7255
1048576 1.9218
EOD
$d7 << EOD
4096 0.4900
65536 1.2344
1048576 1.3647
EOD
$d8 << EOD
4096 0.6740
65536 1.7412
1048576 1.9143
EOD
$d9 << EOD
4096 0.4897
65536 1.2754
1048576 1.3686
EOD
$d10 << EOD
4096 1.9450
65536 3.6950
1048576 3.9195
EOD
$d11 << EOD
4096 1.1968
65536 2.5234
1048576 2.6549
EOD
$d12 << EOD
4096 1.9305
65536 3.6766
1048576 3.9170
EOD
$d13 << EOD
4096 1.1727
65536 2.6648
1048576 2.7687
EOD
$d14 << EOD
4096 1.3519
65536 3.4778
1048576 3.8836
EOD
$d15 << EOD
4096 0.9278
65536 2.6803
1048576 2.8574
EOD
$d16 << EOD
4096 1.3576
65536 3.4501
1048576 3.7914
EOD
$d17 << EOD
4096 0.9328
65536 2.7959
1048576 2.6232
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
