set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/wt/bench/results/jerasure_by_chunk.png'
$d1 << EOD
4096 9.7649
65536 16.0584
1048576 15.4674
EOD
$d2 << EOD
4096 8.1872
65536 11.5705
1048576 13.1394
EOD
$d3 << EOD
4096 9.3837
65536 16.6932
1048576 15.7610
EOD
$d4 << EOD
4096 8.5186
65536 11.3343
1048576 12.5349
EOD
$d5 << EOD
4096 3.5930
65536 10.1602
1048576 9.6163
EOD
$d6 << EOD
4096 3.0132
65536 4.0005
1048576 4.2328
EOD
$d7 << EOD
4096 10.3830
65536 18.7233
1048576 15.9086
EOD
$d8 << EOD
4096 5.0732
65536 5.0201
1048576 5.2318
EOD
$d9 << EOD
7168 12.9059
114688 18.8699
1089536 18.3159
EOD
$d10 << EOD
7168 6.6413
114688 5.7736
1089536 4.5971
EOD
$d11 << EOD
7168 13.6639
114688 18.1920
1089536 18.7086
EOD
$d12 << EOD
7168 7.6720
114688 5.6062
1089536 5.1319
EOD
$d13 << EOD
4096 12.3967
65536 15.9173
1048576 18.3077
EOD
$d14 << EOD
4096 5.3120
65536 5.6526
1048576 5.4298
EOD
$d15 << EOD
4096 10.3441
65536 6.2368
1048576 9.7489
EOD
$d16 << EOD
4096 1.6721
65536 8.9046
1048576 8.0397
EOD
$d17 << EOD
4096 2.9711
65536 4.6971
1048576 6.2489
EOD
$d18 << EOD
4096 2.1032
65536 3.8900
1048576 4.3735
EOD
$d19 << EOD
4096 2.9703
65536 7.7816
1048576 7.9402
EOD
$d20 << EOD
4096 1.9822
65536 3.9128
1048576 4.2781
EOD
$d21 << EOD
4096 1.3869
65536 4.7496
1048576 4.8394
EOD
$d22 << EOD
4096 1.1841
65536 1.4142
1048576 1.3865
EOD
$d23 << EOD
4096 4.1611
65536 9.6414
1048576 9.4420
EOD
$d24 << EOD
4096 2.0409
65536 1.9924
1048576 2.1020
EOD
$d25 << EOD
7168 5.4052
114688 9.8209
1089536 9.6636
EOD
$d26 << EOD
7168 2.3606
114688 2.3352
1089536 2.2325
EOD
$d27 << EOD
7168 5.5089
114688 9.7968
1089536 9.8240
EOD
$d28 << EOD
7168 2.3425
114688 2.3608
1089536 2.0533
EOD
$d29 << EOD
4096 4.4755
65536 5.4809
1048576 9.7765
EOD
$d30 << EOD
4096 1.9076
65536 2.2091
1048576 1.9610
EOD
$d31 << EOD
4096 4.0186
65536 7.5176
1048576 7.9709
EOD
$d32 << EOD
4096 3.6440
65536 5.8627
1048576 6.3689
EOD
$d33 << EOD
4096 3.8385
65536 8.3748
1048576 8.7294
EOD
$d34 << EOD
4096 3.6668
65536 5.7995
1048576 6.5950
EOD
$d35 << EOD
4096 1.3048
65536 3.5549
1048576 3.8623
EOD
$d36 << EOD
4096 1.3681
65536 1.6994
1048576 1.6599
EOD
$d37 << EOD
4096 4.2329
65536 7.2234
1048576 7.8840
EOD
$d38 << EOD
4096 1.9255
65536 2.5537
1048576 2.4934
EOD
$d39 << EOD
7168 5.4686
114688 5.1402
1089536 8.6933
EOD
$d40 << EOD
7168 2.5020
114688 2.5864
1089536 2.6961
EOD
$d41 << EOD
7168 5.0774
114688 7.5560
1089536 8.5759
EOD
$d42 << EOD
7168 2.5237
114688 2.7160
1089536 2.5864
EOD
$d43 << EOD
4096 5.1855
65536 7.6080
1048576 8.7473
EOD
$d44 << EOD
4096 1.4053
65536 2.4493
1048576 2.4937
EOD
$d45 << EOD
4096 1.6208
65536 6.8349
1048576 7.6458
EOD
$d46 << EOD
4096 1.8531
65536 4.0461
1048576 4.7962
EOD
$d47 << EOD
4096 1.5595
65536 5.6373
1048576 8.1577
EOD
$d48 << EOD
4096 1.6528
65536 4.5841
1048576 4.8221
EOD
$d49 << EOD
4096 0.9609
65536 3.4338
1048576 4.2340
EOD
$d50 << EOD
4096 1.1155
65536 1.6771
1048576 1.6734
EOD
$d51 << EOD
4096 2.7082
65536 8.2689
1048576 10.6045
EOD
$d52 << EOD
4096 1.6037
65536 2.6772
1048576 2.3311
EOD
$d53 << EOD
7168 3.7289
114688 5.5642
1089536 9.4568
EOD
$d54 << EOD
7168 2.0484
114688 3.1828
1089536 2.7705
EOD
$d55 << EOD
7168 3.6677
114688 8.2882
1089536 10.3502
EOD
$d56 << EOD
7168 1.9000
114688 3.0910
1089536 2.2259
EOD
$d57 << EOD
4096 2.8105
65536 6.9575
1048576 9.9758
EOD
$d58 << EOD
4096 1.3747
65536 2.8151
1048576 3.1328
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
