set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/main/bench/results/isa_by_chunk.png'
$d1 << EOD
4096 16.1583
65536 17.3369
1048576 17.5415
EOD
$d2 << EOD
4096 9.5784
65536 14.6791
1048576 15.2730
EOD
$d3 << EOD
4096 16.0657
65536 17.4819
1048576 17.6285
EOD
$d4 << EOD
4096 9.5329
65536 14.6987
1048576 15.1927
EOD
$d5 << EOD
4096 17.6943
65536 17.6379
1048576 17.4959
EOD
$d6 << EOD
4096 14.1789
65536 18.5362
1048576 10.9714
EOD
$d7 << EOD
4096 3.6091
65536 6.7670
1048576 7.2462
EOD
$d8 << EOD
4096 4.6391
65536 7.9996
1048576 7.6260
EOD
$d9 << EOD
4096 2.3209
65536 5.0083
1048576 5.5544
EOD
$d10 << EOD
4096 6.1292
65536 8.5269
1048576 8.7039
EOD
$d11 << EOD
4096 4.0267
65536 7.2901
1048576 7.4211
EOD
$d12 << EOD
4096 6.1808
65536 8.1260
1048576 8.2827
EOD
$d13 << EOD
4096 3.8506
65536 7.1405
1048576 7.8067
EOD
$d14 << EOD
4096 4.3506
65536 12.7700
1048576 10.8578
EOD
$d15 << EOD
4096 2.2443
65536 6.0309
1048576 7.1924
EOD
$d16 << EOD
4096 2.8913
65536 7.3399
1048576 7.5286
EOD
$d17 << EOD
4096 1.9937
65536 5.2362
1048576 6.1463
EOD
set grid
set key outside right top font 'sans,7' spacing 0.9
set ylabel 'GB/s (10^9 bytes/s)'
set yrange [0:*]
set logscale x 2
set xlabel 'chunk size'
set xtics ('4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576)
set xrange [3000:1500000]
set multiplot layout 2,2 title 'isa: throughput, against chunk size at 4+2; solid warm, dashed cold, dotted raw baseline' font 'sans,12'
set title 'encode'
plot $d1 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 warm', \
     $d2 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 cold', \
     $d3 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy 4+2 warm', \
     $d4 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy 4+2 cold', \
     $d5 using 1:2 with lines dt 3 lw 2 lc rgb '#2ca02c' title 'raw ec_encode_data 4+2 warm'
set title 'decode, 1 erasure'
plot $d6 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 warm', \
     $d7 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 cold', \
     $d8 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy 4+2 warm', \
     $d9 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy 4+2 cold'
set title 'decode, 2 erasures'
plot $d10 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 warm', \
     $d11 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 cold', \
     $d12 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy 4+2 warm', \
     $d13 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy 4+2 cold'
set title 'repair of one chunk'
plot $d14 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 warm', \
     $d15 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 cold', \
     $d16 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy 4+2 warm', \
     $d17 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy 4+2 cold'
unset multiplot
