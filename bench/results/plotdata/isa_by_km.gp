set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/wt/bench/results/isa_by_km.png'
$d1 << EOD
0 13.2005
1 12.6122
2 8.1320
3 7.6435
4 7.6276
EOD
$d2 << EOD
0 12.0538
1 10.8512
2 10.5205
3 7.7601
4 5.6347
EOD
$d3 << EOD
0 15.9869
1 11.6340
2 12.1521
3 7.3628
4 7.8665
EOD
$d4 << EOD
0 11.5691
1 10.1052
2 11.1631
3 7.5518
4 5.1450
EOD
$d5 << EOD
0 16.3804
1 12.6463
2 12.1278
3 8.3799
4 6.8084
EOD
$d6 << EOD
0 16.3695
1 11.9568
2 6.8357
3 5.7126
4 3.7874
EOD
$d7 << EOD
0 5.0037
1 3.5571
2 2.6920
3 2.1107
4 1.2448
EOD
$d8 << EOD
0 7.9563
1 4.6826
2 3.6950
3 1.7259
4 1.1385
EOD
$d9 << EOD
0 3.6336
1 2.7699
2 2.2232
3 1.6167
4 1.0639
EOD
$d10 << EOD
0 8.1436
1 5.4360
2 4.1576
3 2.2119
4 1.9813
EOD
$d11 << EOD
0 5.1722
1 4.1870
2 3.4048
3 2.4935
4 1.2086
EOD
$d12 << EOD
0 8.4564
1 5.3824
2 4.1234
3 2.3687
4 2.2180
EOD
$d13 << EOD
0 5.8682
1 4.0414
2 3.3811
3 1.4217
4 1.4378
EOD
$d14 << EOD
0 14.6653
1 9.5361
2 7.4767
3 5.0127
4 3.0623
EOD
$d15 << EOD
0 4.2020
1 3.1136
2 3.0343
3 1.9600
4 1.2378
EOD
$d16 << EOD
0 6.2748
1 2.9976
2 3.7035
3 2.1020
4 1.0221
EOD
$d17 << EOD
0 3.9415
1 2.8394
2 2.7110
3 0.9177
4 0.9457
EOD
set grid
set key outside right top font 'sans,7' spacing 0.9
set ylabel 'GB/s (10^9 bytes/s)'
set yrange [0:*]
set xtics ('4+2' 0, '6+3' 1, '8+3' 2, '10+4' 3, '12+4' 4)
set xrange [-0.3:4.3]
set xlabel 'k+m'
set multiplot layout 2,2 title 'isa: throughput, 64 KiB chunks; solid warm, dashed cold, dotted raw baseline' font 'sans,12'
set title 'encode'
plot $d1 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van warm', \
     $d2 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van cold', \
     $d3 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy warm', \
     $d4 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy cold', \
     $d5 using 1:2 with lines dt 3 lw 2 lc rgb '#2ca02c' title 'raw ec_encode_data warm'
set title 'decode, 1 erasure'
plot $d6 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van warm', \
     $d7 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van cold', \
     $d8 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy warm', \
     $d9 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy cold'
set title 'decode, 2 erasures'
plot $d10 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van warm', \
     $d11 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van cold', \
     $d12 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy warm', \
     $d13 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy cold'
set title 'repair of one chunk'
plot $d14 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van warm', \
     $d15 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van cold', \
     $d16 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy warm', \
     $d17 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy cold'
unset multiplot
