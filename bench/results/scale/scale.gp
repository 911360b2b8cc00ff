set terminal pngcairo size 1200,420 noenhanced
set output 'bench/results/scale/scale.png'
set multiplot layout 1,3
set logscale x
set xlabel 'objects per OSD'
set key top left
set grid
set title 'seconds'
plot 'bench/results/scale/scale.dat' using 1:2 with linespoints title 'ec-rados ls', \
     '' using 1:3 with linespoints title 'restart, 0 missed', \
     '' using 1:4 with linespoints title 'restart, writes missed'
set title 'recovery after an out (objects/s)'
plot 'bench/results/scale/scale.dat' using 1:5 with linespoints title 'objects/s'
set title 'ec-osd resident memory (MiB, mean)'
plot 'bench/results/scale/scale.dat' using 1:6 with linespoints title 'VmRSS'
unset multiplot
