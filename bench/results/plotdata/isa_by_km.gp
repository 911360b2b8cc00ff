set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'
set output '/work/main/bench/results/isa_by_km.png'
$d1 << EOD
0 17.3369
1 12.6304
2 11.4265
3 8.6515
4 8.2475
EOD
$d2 << EOD
0 14.6791
1 11.9238
2 10.6525
3 8.1284
4 7.5830
EOD
$d3 << EOD
0 17.4819
1 12.7089
2 10.7230
3 8.5924
4 8.2334
EOD
$d4 << EOD
0 14.6987
1 11.5242
2 10.7232
3 7.4230
4 7.4824
EOD
$d5 << EOD
0 17.6379
1 12.7798
2 11.5892
3 8.7075
4 8.2435
EOD
$d6 << EOD
0 18.5362
1 12.3443
2 7.1903
3 5.7432
4 5.1559
EOD
$d7 << EOD
0 6.7670
1 4.6603
2 2.8060
3 2.1067
4 1.9260
EOD
$d8 << EOD
0 7.9996
1 5.4874
2 3.0358
3 2.0855
4 1.6992
EOD
$d9 << EOD
0 5.0083
1 3.2007
2 1.9684
3 1.6133
4 1.4187
EOD
$d10 << EOD
0 8.5269
1 5.7411
2 3.8898
3 3.0030
4 2.1888
EOD
$d11 << EOD
0 7.2901
1 5.2497
2 3.3684
3 2.5852
4 1.9402
EOD
$d12 << EOD
0 8.1260
1 5.7019
2 3.7925
3 3.0755
4 2.2459
EOD
$d13 << EOD
0 7.1405
1 5.1748
2 3.3043
3 1.6888
4 1.9788
EOD
$d14 << EOD
0 12.7700
1 10.7470
2 5.8970
3 4.9393
4 4.5507
EOD
$d15 << EOD
0 6.0309
1 4.0366
2 2.7320
3 1.9102
4 1.8109
EOD
$d16 << EOD
0 7.3399
1 5.0022
2 3.3030
3 2.0008
4 1.6906
EOD
$d17 << EOD
0 5.2362
1 3.5050
2 2.2144
3 1.1740
4 1.4435
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
