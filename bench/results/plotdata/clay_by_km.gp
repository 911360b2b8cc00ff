set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/main/bench/results/clay_by_km.png'
$d1 << EOD
0 7.4191
1 5.6146
2 4.2125
3 3.0127
4 3.5986
EOD
$d2 << EOD
0 5.0240
1 4.0324
2 3.4192
3 1.7225
4 2.5120
EOD
$d3 << EOD
0 7.4661
1 5.5982
2 4.3972
3 3.0270
4 3.5390
EOD
$d4 << EOD
0 5.1323
1 4.0614
2 3.2226
3 2.1591
4 2.5612
EOD
$d5 << EOD
0 17.3369
1 12.6304
2 11.4265
3 8.6515
4 8.2475
EOD
$d6 << EOD
0 1.7255
1 0.8307
2 0.4473
3 0.2262
4 0.2235
EOD
$d7 << EOD
0 1.2344
1 0.6379
2 0.3604
3 0.1502
4 0.1797
EOD
$d8 << EOD
0 1.7412
1 0.8292
2 0.4464
3 0.2247
4 0.2213
EOD
$d9 << EOD
0 1.2754
1 0.6464
2 0.3526
3 0.1532
4 0.1829
EOD
$d10 << EOD
0 3.6950
1 1.6219
2 0.8581
3 0.4004
4 0.3990
EOD
$d11 << EOD
0 2.5234
1 1.2141
2 0.6183
3 0.2630
4 0.3025
EOD
$d12 << EOD
0 3.6766
1 1.5971
2 0.8582
3 0.3967
4 0.3965
EOD
$d13 << EOD
0 2.6648
1 1.2133
2 0.6782
3 0.2514
4 0.3192
EOD
$d14 << EOD
0 3.4778
1 2.5420
2 1.4710
3 0.9242
4 0.9134
EOD
$d15 << EOD
0 2.6803
1 1.9924
2 1.0472
3 0.5741
4 0.7602
EOD
$d16 << EOD
0 3.4501
1 2.5399
2 1.4617
3 0.9223
4 0.9259
EOD
$d17 << EOD
0 2.7959
1 1.9928
2 1.1019
3 0.6816
4 0.7145
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
