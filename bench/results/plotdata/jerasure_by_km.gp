set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/wt/bench/results/jerasure_by_km.png'
$d1 << EOD
0 16.0584
1 9.7504
2 11.9664
3 7.4611
4 7.2399
EOD
$d2 << EOD
0 11.5705
1 7.2973
2 10.8465
3 6.8188
4 6.8945
EOD
$d3 << EOD
0 10.1602
1 5.3604
2 5.2866
3 3.5773
4 1.9426
EOD
$d4 << EOD
0 4.0005
1 1.9421
2 3.1439
3 2.0787
4 2.1771
EOD
$d5 << EOD
0 18.7233
1 7.2335
2 6.7656
3 4.4093
4 3.2759
EOD
$d6 << EOD
0 5.0201
1 2.2841
2 4.0004
3 2.8568
4 2.4920
EOD
$d7 << EOD
0 6.2368
1 6.5387
2 5.5820
3 4.2136
4 3.5800
EOD
$d8 << EOD
0 8.9046
1 3.1792
2 2.7937
3 1.9473
4 0.8231
EOD
$d9 << EOD
0 4.6971
1 4.9923
2 2.0150
3 2.0546
4 1.3288
EOD
$d10 << EOD
0 3.8900
1 2.2975
2 2.4554
3 1.2191
4 1.1525
EOD
$d11 << EOD
0 4.7496
1 1.7989
2 1.8812
3 0.9370
4 0.8499
EOD
$d12 << EOD
0 1.4142
1 0.9967
2 0.7259
3 0.5408
4 0.4185
EOD
$d13 << EOD
0 9.6414
1 6.9252
2 5.1318
3 3.6440
4 3.1334
EOD
$d14 << EOD
0 1.9924
1 1.0529
2 1.3262
3 0.8888
4 0.6344
EOD
$d15 << EOD
0 7.5176
1 5.3925
2 2.4827
3 2.9001
4 1.4541
EOD
$d16 << EOD
0 5.8627
1 3.4412
2 3.6459
3 2.1536
4 1.5906
EOD
$d17 << EOD
0 3.5549
1 2.2703
2 1.7258
3 1.0204
4 0.5007
EOD
$d18 << EOD
0 1.6994
1 0.7528
2 1.0132
3 0.7053
4 0.5725
EOD
$d19 << EOD
0 7.2234
1 3.4201
2 2.5884
3 1.8441
4 1.6555
EOD
$d20 << EOD
0 2.5537
1 1.0175
2 1.2895
3 0.9849
4 0.7152
EOD
$d21 << EOD
0 6.8349
1 3.2298
2 3.1799
3 2.1278
4 0.8440
EOD
$d22 << EOD
0 4.0461
1 2.1763
2 2.4188
3 1.5358
4 1.1427
EOD
$d23 << EOD
0 3.4338
1 2.6733
2 1.8036
3 1.2951
4 0.7471
EOD
$d24 << EOD
0 1.6771
1 0.7744
2 0.8233
3 0.5913
4 0.3371
EOD
$d25 << EOD
0 8.2689
1 6.1959
2 4.5456
3 3.2062
4 2.7311
EOD
$d26 << EOD
0 2.6772
1 1.1924
2 1.3768
3 0.9300
4 0.6733
EOD
set grid
set key outside right top font 'sans,7' spacing 0.9
set ylabel 'GB/s (10^9 bytes/s)'
set yrange [0:*]
set xtics ('4+2' 0, '6+3' 1, '8+3' 2, '10+4' 3, '12+4' 4)
set xrange [-0.3:4.3]
set xlabel 'k+m'
set multiplot layout 2,2 title 'jerasure: throughput, 64 KiB chunks; solid warm, dashed cold, dotted raw baseline' font 'sans,12'
set title 'encode'
plot $d1 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van warm', \
     $d2 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van cold', \
     $d3 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy_orig warm', \
     $d4 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy_orig cold', \
     $d5 using 1:2 with linespoints dt 1 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_good warm', \
     $d6 using 1:2 with linespoints dt 2 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_good cold', \
     $d7 using 1:2 with lines dt 3 lw 2 lc rgb '#9467bd' title 'raw jerasure_matrix_encode rsv warm', \
     $d8 using 1:2 with lines dt 3 lw 2 lc rgb '#ff7f0e' title 'raw jerasure_schedule_encode cauchy_good warm'
set title 'decode, 1 erasure'
plot $d9 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van warm', \
     $d10 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van cold', \
     $d11 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy_orig warm', \
     $d12 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy_orig cold', \
     $d13 using 1:2 with linespoints dt 1 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_good warm', \
     $d14 using 1:2 with linespoints dt 2 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_good cold'
set title 'decode, 2 erasures'
plot $d15 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van warm', \
     $d16 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van cold', \
     $d17 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy_orig warm', \
     $d18 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy_orig cold', \
     $d19 using 1:2 with linespoints dt 1 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_good warm', \
     $d20 using 1:2 with linespoints dt 2 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_good cold'
set title 'repair of one chunk'
plot $d21 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van warm', \
     $d22 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van cold', \
     $d23 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy_orig warm', \
     $d24 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'cauchy_orig cold', \
     $d25 using 1:2 with linespoints dt 1 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_good warm', \
     $d26 using 1:2 with linespoints dt 2 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_good cold'
unset multiplot
