# lee2001.tcl -- ns-2.35 reference run for Lee, Lee & Choi (2001), one grid point.
#
# usage: ns lee2001.tcl capacity_mbps buffer_pkts variant hoe [pktmode [profile]]
#   variant  reno | newreno | sack | tahoe | vegas
#   hoe      0/1: Agent/TCP/Newreno newreno_changes_ (ignored for other variants)
#   pktmode  optional, "wire640" (default) or "payload600" (see below)
#   profile  optional, "ns235" (default: ns-2.35 defaults) or "era2001":
#            bugFix_ false, singledup_ 0, newreno_changes1_ 0, i.e. defaults
#            closer to the ns-2.1b release the paper used (no multiple-fast-
#            retransmit fix, no Limited Transmit, Slow-but-Steady NewReno).
#            Only for exploring; the reference CSV uses ns235.
#
# prints ONE line:
#   result variant C B completion_s retransmits timeouts drops segments_sent
#
# Topology (all duplex links):
#   S1 -(100Mb,1ms,DropTail 10000)- G1 -(C Mb,48ms,DropTail B)- G2 -(100Mb,1ms,DropTail 10000)- R1
#   base RTT = 2*(1+48+1) ms = 100 ms.
#
# Packet sizes.  In ns-2.35 a one-way TCP adds tcpip_base_hdr_size_ (40) to
# packetSize_ when useHeaders_ is true, EXCEPT for segment 0 when syn_ is false
# (tcp.cc output(): the seqno==0 branch is taken whether or not syn_ is set, and
# the header is only added in the else-branch).  To get exactly 640 bytes on the
# wire for every data packet we use useHeaders_ false and packetSize_ 640
# (pktmode "wire640", the default).  The 8 MiB transfer is then
# ceil(8388608/640) = 13108 segments.  pktmode "payload600" uses packetSize_ 600 +
# useHeaders_ true instead (segment 0 is then 600 bytes, the rest 640; 13982
# segments); it is kept only to document the difference.
#
# Completion time (lee2001 section 3.2: first segment leaving the sender to the
# last segment arriving at the receiver): the FTP starts at t=0 and segment 0
# leaves S1 at t=0.  The end is the instant the sink has received every segment,
# i.e. the first time the sink emits a cumulative ACK for the last segment
# (ns-2 sinks ACK in the same event in which the data packet arrives).  We get
# it from an enqueue ("+") trace of the R1->G2 link (ACK path only).

proc usage {} {
    puts stderr "usage: ns lee2001.tcl capacity_mbps buffer_pkts variant(reno|newreno|sack|tahoe|vegas) hoe(0|1) \[wire640|payload600 \[ns235|era2001\]\]"
    exit 1
}
if {$argc < 4} usage
set C       [lindex $argv 0]
set B       [lindex $argv 1]
set variant [lindex $argv 2]
set hoe     [lindex $argv 3]
set pktmode wire640
if {$argc >= 5} { set pktmode [lindex $argv 4] }
set profile ns235
if {$argc >= 6} { set profile [lindex $argv 5] }

set nbytes 8388608

switch -- $variant {
    tahoe   { set tcpclass Agent/TCP;         set sinkclass Agent/TCPSink }
    reno    { set tcpclass Agent/TCP/Reno;    set sinkclass Agent/TCPSink }
    newreno { set tcpclass Agent/TCP/Newreno; set sinkclass Agent/TCPSink }
    sack    { set tcpclass Agent/TCP/Sack1;   set sinkclass Agent/TCPSink/Sack1 }
    vegas   { set tcpclass Agent/TCP/Vegas;   set sinkclass Agent/TCPSink }
    default usage
}

# --- sender parameters ------------------------------------------------------
# TcpAgent::reset() copies window_ into ssthresh_ and windowInit_ into cwnd_.
# It runs when the agent is created AND again when "$ns run" resets every
# node's agents, so per-instance settings made before "$ns run" also work;
# we set class defaults so that both resets see the same values.
switch -- $pktmode {
    wire640    { Agent/TCP set packetSize_ 640; Agent/TCP set useHeaders_ false }
    payload600 { Agent/TCP set packetSize_ 600; Agent/TCP set useHeaders_ true }
    default usage
}
Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCP set windowInit_ 1
Agent/TCP set window_ 100000          ;# receiver window never limits
Agent/TCP set maxcwnd_ 0
Agent/TCP/Newreno set newreno_changes_ $hoe
switch -- $profile {
    ns235   {}
    era2001 {
        Agent/TCP set bugFix_ false
        Agent/TCP set singledup_ 0
        Agent/TCP/Newreno set newreno_changes1_ 0
    }
    default usage
}

set ns [new Simulator]
# ns-2's default RNG is already seeded with 1 at start-up; make it explicit.
# The only draws in this script are boot_time_ = Uniform(0, tcpTick_), one per
# TcpAgent::reset(): one at agent creation and one at "$ns run" (Vegas: two at
# creation, one at run).  The value in force is the last one: 0.01 * the 2nd
# draw of seed 1 = 5.5588 ms (Vegas: 0.01 * 3rd draw = 0.142 ms).
global defaultRNG
$defaultRNG seed 1

set s1 [$ns node]
set g1 [$ns node]
set g2 [$ns node]
set r1 [$ns node]

$ns duplex-link $s1 $g1 100Mb 1ms DropTail
$ns duplex-link $g1 $g2 [expr {$C * 1000000}] 48ms DropTail
$ns duplex-link $g2 $r1 100Mb 1ms DropTail
$ns queue-limit $s1 $g1 10000
$ns queue-limit $g1 $s1 10000
$ns queue-limit $g1 $g2 $B
$ns queue-limit $g2 $g1 $B
$ns queue-limit $g2 $r1 10000
$ns queue-limit $r1 $g2 10000

# drop counters on the three forward queues
set devnull [open /dev/null w]
set qmons {}
foreach {a b} [list $s1 $g1 $g1 $g2 $g2 $r1] {
    lappend qmons [$ns monitor-queue $a $b $devnull 1000.0]
}

set tcp [new $tcpclass]
set sink [new $sinkclass]
$ns attach-agent $s1 $tcp
$ns attach-agent $r1 $sink
$ns connect $tcp $sink

set segsize [$tcp set packetSize_]
set nsegs [expr {($nbytes + $segsize - 1) / $segsize}]
set lastseq [expr {$nsegs - 1}]

# ACK-path trace (R1 -> G2) to find when the sink first ACKs the last segment
set trfile "/tmp/lee2001_[pid].tr"
set trchan [open $trfile w]
$ns trace-queue $r1 $g2 $trchan

set ftp [new Application/FTP]
$ftp attach-agent $tcp
# FTP "send n" -> TcpAgent::sendmsg(n): curseq_ += ceil(n/packetSize_)
$ns at 0.0 "$ftp send $nbytes"

set finished 0
proc finish {} {
    global ns tcp variant C B trchan trfile lastseq qmons finished devnull
    if {$finished} return
    set finished 1
    flush $trchan
    close $trchan
    set done_t -1
    set f [open $trfile r]
    while {[gets $f line] >= 0} {
        # + time from to type size flags fid src dst seqno uid
        if {[lindex $line 0] eq "+" && [lindex $line 4] eq "ack" && [lindex $line 10] >= $lastseq} {
            set done_t [lindex $line 1]
            break
        }
    }
    close $f
    file delete $trfile
    set drops 0
    foreach q $qmons { incr drops [$q set pdrops_] }
    puts [format "result %s %s %s %.6f %d %d %d %d" $variant $C $B $done_t \
              [$tcp set nrexmitpack_] [$tcp set nrexmit_] $drops [$tcp set ndatapack_]]
    close $devnull
    exit 0
}

# the agent calls "$tcp done" when the last segment is cumulatively ACKed
$tcp proc done {} { global ns; $ns at [$ns now] "finish" }
$ns at 3000.0 "finish"
$ns run
