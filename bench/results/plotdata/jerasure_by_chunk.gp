set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/main/bench/results/jerasure_by_chunk.png'
$d1 << EOD
4096 13.9572
65536 17.2041
1048576 16.6106
EOD
$d2 << EOD
4096 9.0423
65536 14.4275
1048576 15.5951
EOD
$d3 << EOD
4096 14.1028
65536 17.2773
1048576 16.5869
EOD
$d4 << EOD
4096 9.0011
65536 14.2904
1048576 15.4042
EOD
$d5 << EOD
4096 6.8393
65536 14.2746
1048576 12.6924
EOD
$d6 << EOD
4096 3.3471
65536 5.2467
1048576 5.6681
EOD
$d7 << EOD
4096 11.9973
65536 23.9029
1048576 20.8484
EOD
$d8 << EOD
4096 5.1812
65536 6.8152
1048576 7.2072
EOD
$d9 << EOD
7168 14.2871
114688 24.2351
1089536 21.4053
EOD
$d10 << EOD
7168 8.2429
114688 7.0051
1089536 7.0069
EOD
$d11 << EOD
7168 14.1898
114688 24.2765
1089536 21.3904
EOD
$d12 << EOD
7168 8.7406
114688 7.0760
1089536 7.2345
EOD
$d13 << EOD
4096 14.1967
65536 26.5537
1048576 21.9314
EOD
$d14 << EOD
4096 6.6238
65536 6.5568
1048576 6.9401
EOD
$d15 << EOD
4096 10.9428
65536 8.9961
1048576 10.7643
EOD
$d16 << EOD
4096 3.3696
65536 9.1175
1048576 8.8836
EOD
$d17 << EOD
4096 4.8012
65536 7.9133
1048576 7.4918
EOD
$d18 << EOD
4096 2.5051
65536 4.8471
1048576 5.6219
EOD
$d19 << EOD
4096 4.7815
65536 7.9802
1048576 7.4715
EOD
$d20 << EOD
4096 2.5340
65536 4.8056
1048576 5.2760
EOD
$d21 << EOD
4096 2.6200
65536 6.9128
1048576 5.9921
EOD
$d22 << EOD
4096 1.3068
65536 1.7621
1048576 1.9029
EOD
$d23 << EOD
4096 4.4923
65536 12.5580
1048576 10.3906
EOD
$d24 << EOD
4096 2.2013
65536 2.6197
1048576 2.8312
EOD
$d25 << EOD
7168 5.3889
114688 11.1362
1089536 10.4520
EOD
$d26 << EOD
7168 2.7154
114688 2.5754
1089536 2.7306
EOD
$d27 << EOD
7168 5.2211
114688 11.0673
1089536 10.1673
EOD
$d28 << EOD
7168 2.7764
114688 2.5353
1089536 2.7880
EOD
$d29 << EOD
4096 4.5045
65536 12.7391
1048576 10.3921
EOD
$d30 << EOD
4096 2.3218
65536 2.5766
1048576 2.7303
EOD
$d31 << EOD
4096 6.1125
65536 8.5080
1048576 8.1772
EOD
$d32 << EOD
4096 4.1486
65536 7.0429
1048576 7.6876
EOD
$d33 << EOD
4096 6.0184
65536 8.4786
1048576 8.2727
EOD
$d34 << EOD
4096 4.1705
65536 7.1320
1048576 7.6190
EOD
$d35 << EOD
4096 2.4020
65536 5.7932
1048576 5.2432
EOD
$d36 << EOD
4096 1.4617
65536 2.3058
1048576 2.4647
EOD
$d37 << EOD
4096 4.4496
65536 11.3368
1048576 9.7978
EOD
$d38 << EOD
4096 2.3329
65536 3.2500
1048576 3.5900
EOD
$d39 << EOD
7168 5.7569
114688 12.5361
1089536 11.2661
EOD
$d40 << EOD
7168 2.8391
114688 3.4401
1089536 3.5342
EOD
$d41 << EOD
7168 5.1930
114688 11.6545
1089536 10.4373
EOD
$d42 << EOD
7168 3.0154
114688 3.4303
1089536 3.7880
EOD
$d43 << EOD
4096 5.0160
65536 12.6288
1048576 10.8677
EOD
$d44 << EOD
4096 1.8014
65536 2.9030
1048576 3.2215
EOD
$d45 << EOD
4096 2.8468
65536 7.2010
1048576 7.4370
EOD
$d46 << EOD
4096 2.0351
65536 5.2726
1048576 5.7590
EOD
$d47 << EOD
4096 2.7971
65536 7.3198
1048576 7.4897
EOD
$d48 << EOD
4096 1.9618
65536 5.2703
1048576 5.9538
EOD
$d49 << EOD
4096 1.8792
65536 6.3923
1048576 6.0141
EOD
$d50 << EOD
4096 1.1604
65536 2.0308
1048576 2.2759
EOD
$d51 << EOD
4096 2.7485
65536 11.3964
1048576 10.8700
EOD
$d52 << EOD
4096 1.7036
65536 3.7861
1048576 4.4570
EOD
$d53 << EOD
7168 3.7985
114688 10.9173
1089536 10.7653
EOD
$d54 << EOD
7168 2.2485
114688 4.0056
1089536 4.0493
EOD
$d55 << EOD
7168 3.6760
114688 11.2455
1089536 11.1644
EOD
$d56 << EOD
7168 2.2785
114688 3.9116
1089536 4.3146
EOD
$d57 << EOD
4096 2.7453
65536 11.4274
1048576 11.8795
EOD
$d58 << EOD
4096 1.7417
65536 3.5205
1048576 4.2030
EOD
set grid
set key outside right top font 'sans,7' spacing 0.9
set ylabel 'GB/s (10^9 bytes/s)'
set yrange [0:*]
set logscale x 2
set xlabel 'chunk size'
set xtics ('4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576)
set xrange [3000:1500000]
set multiplot layout 2,2 title 'jerasure: throughput, against chunk size at 4+2; solid warm, dashed cold, dotted raw baseline' font 'sans,12'
set title 'encode'
plot $d1 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 warm', \
     $d2 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 cold', \
     $d3 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_r6_op 4+2 warm', \
     $d4 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_r6_op 4+2 cold', \
     $d5 using 1:2 with linespoints dt 1 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_orig 4+2 warm', \
     $d6 using 1:2 with linespoints dt 2 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_orig 4+2 cold', \
     $d7 using 1:2 with linespoints dt 1 lw 2 lc rgb '#9467bd' pt 7 ps 0.6 title 'cauchy_good 4+2 warm', \
     $d8 using 1:2 with linespoints dt 2 lw 2 lc rgb '#9467bd' pt 7 ps 0.6 title 'cauchy_good 4+2 cold', \
     $d9 using 1:2 with linespoints dt 1 lw 2 lc rgb '#ff7f0e' pt 7 ps 0.6 title 'liberation 4+2 warm', \
     $d10 using 1:2 with linespoints dt 2 lw 2 lc rgb '#ff7f0e' pt 7 ps 0.6 title 'liberation 4+2 cold', \
     $d11 using 1:2 with linespoints dt 1 lw 2 lc rgb '#8c564b' pt 7 ps 0.6 title 'blaum_roth 4+2 warm', \
     $d12 using 1:2 with linespoints dt 2 lw 2 lc rgb '#8c564b' pt 7 ps 0.6 title 'blaum_roth 4+2 cold', \
     $d13 using 1:2 with linespoints dt 1 lw 2 lc rgb '#e377c2' pt 7 ps 0.6 title 'liber8tion 4+2 warm', \
     $d14 using 1:2 with linespoints dt 2 lw 2 lc rgb '#e377c2' pt 7 ps 0.6 title 'liber8tion 4+2 cold', \
     $d15 using 1:2 with lines dt 3 lw 2 lc rgb '#17becf' title 'raw jerasure_matrix_encode rsv 4+2 warm', \
     $d16 using 1:2 with lines dt 3 lw 2 lc rgb '#7f7f7f' title 'raw jerasure_schedule_encode cauchy_good 4+2 warm'
set title 'decode, 1 erasure'
plot $d17 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 warm', \
     $d18 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 cold', \
     $d19 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_r6_op 4+2 warm', \
     $d20 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_r6_op 4+2 cold', \
     $d21 using 1:2 with linespoints dt 1 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_orig 4+2 warm', \
     $d22 using 1:2 with linespoints dt 2 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_orig 4+2 cold', \
     $d23 using 1:2 with linespoints dt 1 lw 2 lc rgb '#9467bd' pt 7 ps 0.6 title 'cauchy_good 4+2 warm', \
     $d24 using 1:2 with linespoints dt 2 lw 2 lc rgb '#9467bd' pt 7 ps 0.6 title 'cauchy_good 4+2 cold', \
     $d25 using 1:2 with linespoints dt 1 lw 2 lc rgb '#ff7f0e' pt 7 ps 0.6 title 'liberation 4+2 warm', \
     $d26 using 1:2 with linespoints dt 2 lw 2 lc rgb '#ff7f0e' pt 7 ps 0.6 title 'liberation 4+2 cold', \
     $d27 using 1:2 with linespoints dt 1 lw 2 lc rgb '#8c564b' pt 7 ps 0.6 title 'blaum_roth 4+2 warm', \
     $d28 using 1:2 with linespoints dt 2 lw 2 lc rgb '#8c564b' pt 7 ps 0.6 title 'blaum_roth 4+2 cold', \
     $d29 using 1:2 with linespoints dt 1 lw 2 lc rgb '#e377c2' pt 7 ps 0.6 title 'liber8tion 4+2 warm', \
     $d30 using 1:2 with linespoints dt 2 lw 2 lc rgb '#e377c2' pt 7 ps 0.6 title 'liber8tion 4+2 cold'
set title 'decode, 2 erasures'
plot $d31 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 warm', \
     $d32 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 cold', \
     $d33 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_r6_op 4+2 warm', \
     $d34 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_r6_op 4+2 cold', \
     $d35 using 1:2 with linespoints dt 1 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_orig 4+2 warm', \
     $d36 using 1:2 with linespoints dt 2 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_orig 4+2 cold', \
     $d37 using 1:2 with linespoints dt 1 lw 2 lc rgb '#9467bd' pt 7 ps 0.6 title 'cauchy_good 4+2 warm', \
     $d38 using 1:2 with linespoints dt 2 lw 2 lc rgb '#9467bd' pt 7 ps 0.6 title 'cauchy_good 4+2 cold', \
     $d39 using 1:2 with linespoints dt 1 lw 2 lc rgb '#ff7f0e' pt 7 ps 0.6 title 'liberation 4+2 warm', \
     $d40 using 1:2 with linespoints dt 2 lw 2 lc rgb '#ff7f0e' pt 7 ps 0.6 title 'liberation 4+2 cold', \
     $d41 using 1:2 with linespoints dt 1 lw 2 lc rgb '#8c564b' pt 7 ps 0.6 title 'blaum_roth 4+2 warm', \
     $d42 using 1:2 with linespoints dt 2 lw 2 lc rgb '#8c564b' pt 7 ps 0.6 title 'blaum_roth 4+2 cold', \
     $d43 using 1:2 with linespoints dt 1 lw 2 lc rgb '#e377c2' pt 7 ps 0.6 title 'liber8tion 4+2 warm', \
     $d44 using 1:2 with linespoints dt 2 lw 2 lc rgb '#e377c2' pt 7 ps 0.6 title 'liber8tion 4+2 cold'
set title 'repair of one chunk'
plot $d45 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 warm', \
     $d46 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van 4+2 cold', \
     $d47 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_r6_op 4+2 warm', \
     $d48 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_r6_op 4+2 cold', \
     $d49 using 1:2 with linespoints dt 1 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_orig 4+2 warm', \
     $d50 using 1:2 with linespoints dt 2 lw 2 lc rgb '#2ca02c' pt 7 ps 0.6 title 'cauchy_orig 4+2 cold', \
     $d51 using 1:2 with linespoints dt 1 lw 2 lc rgb '#9467bd' pt 7 ps 0.6 title 'cauchy_good 4+2 warm', \
     $d52 using 1:2 with linespoints dt 2 lw 2 lc rgb '#9467bd' pt 7 ps 0.6 title 'cauchy_good 4+2 cold', \
     $d53 using 1:2 with linespoints dt 1 lw 2 lc rgb '#ff7f0e' pt 7 ps 0.6 title 'liberation 4+2 warm', \
     $d54 using 1:2 with linespoints dt 2 lw 2 lc rgb '#ff7f0e' pt 7 ps 0.6 title 'liberation 4+2 cold', \
     $d55 using 1:2 with linespoints dt 1 lw 2 lc rgb '#8c564b' pt 7 ps 0.6 title 'blaum_roth 4+2 warm', \
     $d56 using 1:2 with linespoints dt 2 lw 2 lc rgb '#8c564b' pt 7 ps 0.6 title 'blaum_roth 4+2 cold', \
     $d57 using 1:2 with linespoints dt 1 lw 2 lc rgb '#e377c2' pt 7 ps 0.6 title 'liber8tion 4+2 warm', \
     $d58 using 1:2 with linespoints dt 2 lw 2 lc rgb '#e377c2' pt 7 ps 0.6 title 'liber8tion 4+2 cold'
unset multiplot
