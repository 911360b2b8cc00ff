set terminal pngcairo size 900,520 noenhanced font ',10'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key top left
set yrange [0:*]
set output '/tmp/rD/recovery_time.png'
set title "Rebuild time after one OSD is out (transfer time)\nOBJECTS=24 OBJ_STRIPES=1 READ_SIZE=4M PIPELINES=off,auto,on RATE=100mbit DSCP_BANDS=on PGS=16 osd_recovery_nice=0"
set ylabel 'seconds'
plot '/tmp/rD/recovery_plot.dat' index 0 using 2:xtic(1) title 'RS(10,4) isa off' , '/tmp/rD/recovery_plot.dat' index 0 using 3:xtic(1) title 'RS(10,4) isa auto' , '/tmp/rD/recovery_plot.dat' index 0 using 4:xtic(1) title 'RS(10,4) isa on'
set output '/tmp/rD/recovery_bytes.png'
set title "Bytes received from helpers by the rebuilding OSDs\nOBJECTS=24 OBJ_STRIPES=1 READ_SIZE=4M PIPELINES=off,auto,on RATE=100mbit DSCP_BANDS=on PGS=16 osd_recovery_nice=0"
set ylabel 'MiB'
plot '/tmp/rD/recovery_plot.dat' index 1 using 2:xtic(1) title 'RS(10,4) isa off' , '/tmp/rD/recovery_plot.dat' index 1 using 3:xtic(1) title 'RS(10,4) isa auto' , '/tmp/rD/recovery_plot.dat' index 1 using 4:xtic(1) title 'RS(10,4) isa on'
set xtics rotate by -30
set output '/tmp/rD/recovery_reads.png'
set title "Client reads of 4194304 bytes (p50), one OSD down\nOBJECTS=24 OBJ_STRIPES=1 READ_SIZE=4M PIPELINES=off,auto,on RATE=100mbit DSCP_BANDS=on PGS=16 osd_recovery_nice=0"
set ylabel 'ms'
plot '/tmp/rD/recovery_reads.dat' using 2:xtic(1) title 'healthy', '' using 3 title 'degraded phase, plain', '' using 4 title 'degraded phase, degraded'
set output '/tmp/rD/recovery_per_object.png'
set title "One object's repair (recovery, one pull at a time)\nOBJECTS=24 OBJ_STRIPES=1 READ_SIZE=4M PIPELINES=off,auto,on RATE=100mbit DSCP_BANDS=on PGS=16 osd_recovery_nice=0"
set ylabel 'seconds'
plot '/tmp/rD/recovery_reads.dat' using 5:xtic(1) title 'time per object rebuilt'
