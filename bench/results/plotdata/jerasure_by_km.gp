set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/main/bench/results/jerasure_by_km.png'
$d1 << EOD
0 17.2041
1 12.6120
2 11.1945
3 8.5945
4 8.2067
EOD
$d2 << EOD
0 14.4275
1 11.6198
2 10.5316
3 6.2450
4 7.5693
EOD
$d3 << EOD
0 14.2746
1 8.2586
2 7.1951
3 5.3404
4 5.1492
EOD
$d4 << EOD
0 5.2467
1 3.8926
2 3.9453
3 3.1586
4 3.3197
EOD
$d5 << EOD
0 23.9029
1 10.1978
2 8.7532
3 6.4120
4 6.4933
EOD
$d6 << EOD
0 6.8152
1 4.5781
2 4.3449
3 3.4961
4 3.7164
EOD
$d7 << EOD
0 8.9961
1 6.7443
2 6.0683
3 4.3713
4 4.5499
EOD
$d8 << EOD
0 9.1175
1 3.2611
2 2.8500
3 1.9105
4 1.9462
EOD
$d9 << EOD
0 7.9133
1 5.5603
2 3.3391
3 2.1871
4 1.5940
EOD
$d10 << EOD
0 4.8471
1 3.2411
2 1.6676
3 1.0867
4 1.3331
EOD
$d11 << EOD
0 6.9128
1 4.0323
2 2.4181
3 1.9004
4 1.5265
EOD
$d12 << EOD
0 1.7621
1 1.2941
2 0.7240
3 0.6759
4 0.5832
EOD
$d13 << EOD
0 12.5580
1 8.1931
2 4.9836
3 4.6223
4 3.9623
EOD
$d14 << EOD
0 2.6197
1 1.8818
2 1.1827
3 0.8710
4 0.7911
EOD
$d15 << EOD
0 8.5080
1 5.6965
2 3.8559
3 3.1084
4 2.0467
EOD
$d16 << EOD
0 7.0429
1 4.5411
2 2.4291
3 1.7122
4 1.9675
EOD
$d17 << EOD
0 5.7932
1 3.3306
2 2.3014
3 1.9006
4 1.5571
EOD
$d18 << EOD
0 2.3058
1 1.5702
2 1.1681
3 0.9366
4 0.8041
EOD
$d19 << EOD
0 11.3368
1 5.1636
2 3.3365
3 2.8291
4 2.3570
EOD
$d20 << EOD
0 3.2500
1 1.9392
2 1.3204
3 1.0668
4 1.0600
EOD
$d21 << EOD
0 7.2010
1 4.9350
2 3.3041
3 2.1702
4 1.6683
EOD
$d22 << EOD
0 5.2726
1 3.1119
2 2.1495
3 1.1248
4 1.4282
EOD
$d23 << EOD
0 6.3923
1 3.7783
2 2.1923
3 1.8166
4 1.4487
EOD
$d24 << EOD
0 2.0308
1 1.3281
2 0.8504
3 0.6998
4 0.5881
EOD
$d25 << EOD
0 11.3964
1 7.4589
2 4.3705
3 4.3303
4 3.5936
EOD
$d26 << EOD
0 3.7861
1 2.1279
2 1.1328
3 0.7204
4 0.9051
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
