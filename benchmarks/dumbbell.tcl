# dumbbell.tcl -- ns-2.35 side of `renolab bench`: the reference performance dumbbell.
#
# usage: ns dumbbell.tcl flows bottleneck_bps duration_s [buffer_pkts [spacing_s]]
#
# Topology (duplex links, DropTail everywhere), for i = 1..flows:
#   S_i -(10 x C, 1 ms)- R1 -(C, 8 ms)- R2 -(10 x C, 1 ms)- D_i
# RTT 20 ms; the bottleneck buffer defaults to one BDP in 1500-byte packets
# (C = 1 Gb/s: 1667). Access queues hold 100000 packets (never the bottleneck).
#
# Traffic: one Reno FTP per pair, flow i starting at (i-1) x spacing_s (default
# 10 ms), unlimited.
# Agent/TCP/Reno with ns-2.35's defaults except packetSize_ 1460 (+ 40 bytes of
# header on the wire: 1500), window_ 100000 (never limits); windowInit_ 2,
# minrto_ 200 ms, rtxcur_init_ 3 s, tcpTick_ 10 ms and syn_ true are the
# defaults. Sinks: plain Agent/TCPSink (no delayed ACK, 40-byte ACKs).
# renolab's side is renolab.bench.reference_scenario(): profile "ns2" with the
# same settings written out.
#
# No trace files, no monitors: nothing but the simulation is timed. Only the IP,
# TCP and flags headers are allocated (ns-2's "remove-all-packet-headers").
#
# prints ONE line:
#   result flows C duration delivered_pkts run_wall_s peak_rss_kB
# delivered_pkts: data packets delivered in order to the sinks, the sum over
#   sinks of (bytes - 40) / 1500, where bytes is what a TCPSink delivered in
#   order (its bytes_, the 40-byte SYN included). bytes_ is a C int that wraps
#   past 2 GiB, so it is read every 0.5 simulated seconds (0.05 s above 10 Gb/s)
#   and the increments are added up modulo 2^32 (at most 10 Gb/s x 0.5 s = 625 MB
#   between two reads).
# run_wall_s: wall-clock time of "$ns run" alone (set-up excluded);
# peak_rss_kB: VmHWM of /proc/self/status, "n/a" where there is none.

proc usage {} {
    puts stderr "usage: ns dumbbell.tcl flows bottleneck_bps duration_s \[buffer_pkts \[spacing_s\]\]"
    exit 1
}
if {$argc < 3} usage
set nflows   [lindex $argv 0]
set C        [lindex $argv 1]
set duration [lindex $argv 2]
set wire     1500
set payload  1460
if {$argc >= 4} {
    set B [lindex $argv 3]
} else {
    set B [expr {int(ceil($C * 0.020 / (8.0 * $wire) - 1e-9))}]
}
set spacing 0.010
if {$argc >= 5} { set spacing [lindex $argv 4] }
set access [expr {10.0 * $C}]

# Only the packet headers this script uses: ns-2 otherwise allocates and zeroes
# every registered protocol's header in every packet (about 1.8x slower here).
remove-all-packet-headers
add-packet-header IP TCP Flags

Agent/TCP set packetSize_ $payload
Agent/TCP set window_ 100000
Agent/TCP set windowInit_ 2
Agent/TCP set maxcwnd_ 0

set ns [new Simulator]
global defaultRNG
$defaultRNG seed 1

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 $C 8ms DropTail
$ns queue-limit $r1 $r2 $B
$ns queue-limit $r2 $r1 $B

set sinks {}
for {set i 1} {$i <= $nflows} {incr i} {
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s $r1 $access 1ms DropTail
    $ns duplex-link $r2 $d $access 1ms DropTail
    foreach {a b} [list $s $r1 $r1 $s $r2 $d $d $r2] { $ns queue-limit $a $b 100000 }
    set tcp [new Agent/TCP/Reno]
    set sink [new Agent/TCPSink]
    $ns attach-agent $s $tcp
    $ns attach-agent $d $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at [expr {($i - 1) * $spacing}] "$ftp start"
    lappend sinks $sink
    set last($sink) 0
    set total($sink) 0
}

proc sample {} {
    global sinks last total
    foreach k $sinks {
        set b [$k set bytes_]
        incr total($k) [expr {($b - $last($k)) & 0xFFFFFFFF}]
        set last($k) $b
    }
}
proc sample_every {dt} {
    global ns
    sample
    $ns at [expr {[$ns now] + $dt}] "sample_every $dt"
}
set sample_dt [expr {$C > 1e10 ? 0.05 : 0.5}]
$ns at $sample_dt "sample_every $sample_dt"

proc peak_rss_kb {} {
    if {[catch {open /proc/self/status r} f]} { return n/a }
    set kb n/a
    while {[gets $f line] >= 0} {
        if {[regexp {^VmHWM:\s+([0-9]+)} $line -> v]} { set kb $v }
    }
    close $f
    return $kb
}

proc finish {} {
    global ns sinks nflows C duration t0 wire total
    set wall [expr {([clock clicks -microseconds] - $t0) / 1e6}]
    sample
    set delivered 0
    foreach k $sinks {
        if {$total($k) >= 40} { incr delivered [expr {($total($k) - 40) / $wire}] }
    }
    puts [format "result %d %s %s %d %.6f %s" $nflows $C $duration $delivered $wall [peak_rss_kb]]
    exit 0
}
$ns at $duration "finish"
set t0 [clock clicks -microseconds]
$ns run
