set terminal pngcairo size 900,520 noenhanced font ',10'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key top left
set yrange [0:*]
set output 'bench/results/recovery_2G_netcap/recovery_time.png'
set title "Rebuild time after one OSD is out (transfer time)\nDATA=2G OBJ_SIZE=4M RATE=1gbit PGS=32 osd_recovery_nice=20 osd_recovery_max_network_bytes_per_sec=2500000"
set ylabel 'seconds'
plot 'bench/results/recovery_2G_netcap/recovery_plot.dat' index 0 using 2:xtic(1) title 'RS(4,2) isa' , 'bench/results/recovery_2G_netcap/recovery_plot.dat' index 0 using 3:xtic(1) title 'CLAY(4,2,5)' , 'bench/results/recovery_2G_netcap/recovery_plot.dat' index 0 using 4:xtic(1) title 'RS(10,4) isa' , 'bench/results/recovery_2G_netcap/recovery_plot.dat' index 0 using 5:xtic(1) title 'CLAY(10,4,13)'
set output 'bench/results/recovery_2G_netcap/recovery_bytes.png'
set title "Bytes received from helpers by the rebuilding OSDs\nDATA=2G OBJ_SIZE=4M RATE=1gbit PGS=32 osd_recovery_nice=20 osd_recovery_max_network_bytes_per_sec=2500000"
set ylabel 'MiB'
plot 'bench/results/recovery_2G_netcap/recovery_plot.dat' index 1 using 2:xtic(1) title 'RS(4,2) isa' , 'bench/results/recovery_2G_netcap/recovery_plot.dat' index 1 using 3:xtic(1) title 'CLAY(4,2,5)' , 'bench/results/recovery_2G_netcap/recovery_plot.dat' index 1 using 4:xtic(1) title 'RS(10,4) isa' , 'bench/results/recovery_2G_netcap/recovery_plot.dat' index 1 using 5:xtic(1) title 'CLAY(10,4,13)'
