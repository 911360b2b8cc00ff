set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/wt/bench/results/isa_by_chunk.png'
$d1 << EOD
4096 10.7025
65536 13.2005
1048576 16.2206
EOD
$d2 << EOD
4096 8.0852
65536 12.0538
1048576 14.0982
EOD
$d3 << EOD
4096 10.5789
65536 15.9869
1048576 14.0357
EOD
$d4 << EOD
4096 8.0792
65536 11.5691
1048576 12.8665
EOD
$d5 << EOD
4096 17.2734
65536 16.3804
1048576 15.8445
EOD
$d6 << EOD
4096 8.1987
65536 16.3695
1048576 13.4086
EOD
$d7 << EOD
4096 2.9749
65536 5.0037
1048576 5.8449
EOD
$d8 << EOD
4096 3.1625
65536 7.9563
1048576 7.5288
EOD
$d9 << EOD
4096 2.1446
65536 3.6336
1048576 4.0818
EOD
$d10 << EOD
4096 4.4197
65536 8.1436
1048576 6.0821
EOD
$d11 << EOD
4096 3.8608
65536 5.1722
1048576 6.7679
EOD
$d12 << EOD
4096 4.3157
65536 8.4564
1048576 8.0701
EOD
$d13 << EOD
4096 3.9182
65536 5.8682
1048576 6.3463
EOD
$d14 << EOD
4096 2.4365
65536 14.6653
1048576 13.9603
EOD
$d15 << EOD
4096 2.0736
65536 4.2020
1048576 5.9480
EOD
$d16 << EOD
4096 1.6633
65536 6.2748
1048576 7.2928
EOD
$d17 << EOD
4096 1.9761
65536 3.9415
1048576 4.7169
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
