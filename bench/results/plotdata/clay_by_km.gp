set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/wt/bench/results/clay_by_km.png'
$d1 << EOD
0 6.2566
1 6.8086
2 6.3368
3 5.0372
4 4.9221
EOD
$d2 << EOD
0 6.0852
1 4.9004
2 4.4114
3 3.3821
4 3.4120
EOD
$d3 << EOD
0 7.6075
1 4.6131
2 5.5298
3 4.9792
4 5.4130
EOD
$d4 << EOD
0 5.8365
1 4.3795
2 4.3306
3 3.3067
4 3.1435
EOD
$d5 << EOD
0 13.2005
1 12.6122
2 8.1320
3 7.6435
4 7.6276
EOD
$d6 << EOD
0 1.4718
1 1.0990
2 0.6957
3 0.4511
4 0.4116
EOD
$d7 << EOD
0 1.3917
1 0.7574
2 0.4776
3 0.2828
4 0.2245
EOD
$d8 << EOD
0 2.1892
1 0.7214
2 0.5758
3 0.4233
4 0.3994
EOD
$d9 << EOD
0 1.4169
1 0.7118
2 0.5098
3 0.2814
4 0.1944
EOD
$d10 << EOD
0 3.3495
1 2.0546
2 1.0344
3 0.8305
4 0.7589
EOD
$d11 << EOD
0 2.7116
1 1.3271
2 0.9166
3 0.4504
4 0.3492
EOD
$d12 << EOD
0 4.0497
1 1.4335
2 1.1639
3 0.7869
4 0.7187
EOD
$d13 << EOD
0 2.6282
1 1.2838
2 0.8844
3 0.4472
4 0.3305
EOD
$d14 << EOD
0 2.9869
1 3.0588
2 1.8450
3 1.8272
4 1.7117
EOD
$d15 << EOD
0 2.8670
1 1.7219
2 1.4722
3 1.0313
4 0.8713
EOD
$d16 << EOD
0 4.1524
1 3.0604
2 2.3008
3 1.6937
4 1.1042
EOD
$d17 << EOD
0 3.2237
1 1.8006
2 1.6261
3 0.9085
4 0.7205
EOD
set grid
set key outside right top font 'sans,7' spacing 0.9
set ylabel 'GB/s (10^9 bytes/s)'
set yrange [0:*]
set xtics ('4+2' 0, '6+3' 1, '8+3' 2, '10+4' 3, '12+4' 4)
set xrange [-0.3:4.3]
set xlabel 'k+m'
set multiplot layout 2,2 title 'clay: throughput, 64 KiB chunks (rounded up to its alignment); solid warm, dashed cold, dotted raw baseline' font 'sans,12'
set title 'encode'
plot $d1 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure warm', \
     $d2 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure cold', \
     $d3 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa warm', \
     $d4 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa cold', \
     $d5 using 1:2 with lines dt 3 lw 2 lc rgb '#2ca02c' title 'isa reed_sol_van (plugin) warm'
set title 'decode, 1 erasure'
plot $d6 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure warm', \
     $d7 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure cold', \
     $d8 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa warm', \
     $d9 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa cold'
set title 'decode, 2 erasures'
plot $d10 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure warm', \
     $d11 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure cold', \
     $d12 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa warm', \
     $d13 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa cold'
set title 'repair of one chunk'
plot $d14 using 1:2 with linespoints dt 1 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure warm', \
     $d15 using 1:2 with linespoints dt 2 lw 2 lc rgb '#1f77b4' pt 7 ps 0.6 title 'reed_sol_van mds=jerasure cold', \
     $d16 using 1:2 with linespoints dt 1 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa warm', \
     $d17 using 1:2 with linespoints dt 2 lw 2 lc rgb '#d62728' pt 7 ps 0.6 title 'reed_sol_van mds=isa cold'
unset multiplot
