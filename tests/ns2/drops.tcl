# drops.tcl -- ns-2.35 reference: one flow over one link with deterministic drops.
#
# usage: ns drops.tcl variant "drop list" [hoe] [hdr|nohdr] [window]
#   variant    reno | newreno | sack | tahoe | vegas
#   drop list  0-based indices of the DATA packets crossing the link, e.g. "40 42"
#              ("" or "none" for no drops).  ErrorModel/List counts every
#              packet that reaches it, and only data packets travel A->B, so
#              the index equals the segment number as long as no retransmission
#              has been sent before that segment's first transmission (true for
#              the drop lists used in tests/ns2/out/).
#   hoe        newreno_changes_ for newreno (default 0)
#   hdr|nohdr  hdr (default): packetSize_ 1000 + useHeaders_ true, i.e. 1040-byte
#              data packets on the wire, except segment 0 which ns-2 sends
#              without the 40-byte header when syn_ is false (1000 bytes).
#              nohdr: useHeaders_ false, every data packet 1000 bytes.
#   window     window_ (receiver window, and the initial ssthresh_), default 100000
#
# Topology: A -(1 Mb/s, 50 ms, DropTail limit 100000)- B, duplex.  200 segments.
# Sender: syn_ false, delay_growth_ false, windowInit_ 1, window_ 100000 unless
# given (ssthresh_ starts at window_), everything else ns-2.35 default.
# Sink: Agent/TCPSink (Agent/TCPSink/Sack1 for sack), no delayed ACKs, 40-byte ACKs.
#
# Output:
#   # drop <time> <seqno>               one per packet removed by the error model
#   <time> <cwnd> <ssthresh>            initial state, then one line whenever cwnd_
#                                       or ssthresh_ changes (cwnd to 3 decimals,
#                                       the precision of ns-2's variable trace;
#                                       changes at the same instant are collapsed)
#   result variant completion_s retransmits timeouts drops segments_sent

proc usage {} {
    puts stderr "usage: ns drops.tcl variant \"drops\" \[hoe\] \[hdr|nohdr\] \[window\]"
    exit 1
}
if {$argc < 2} usage
set variant [lindex $argv 0]
set droplist [lindex $argv 1]
if {$droplist eq "none"} { set droplist {} }
set hoe 0
if {$argc >= 3} { set hoe [lindex $argv 2] }
set hdrmode hdr
if {$argc >= 4} { set hdrmode [lindex $argv 3] }
set nsegs 200

switch -- $variant {
    tahoe   { set tcpclass Agent/TCP;         set sinkclass Agent/TCPSink }
    reno    { set tcpclass Agent/TCP/Reno;    set sinkclass Agent/TCPSink }
    newreno { set tcpclass Agent/TCP/Newreno; set sinkclass Agent/TCPSink }
    sack    { set tcpclass Agent/TCP/Sack1;   set sinkclass Agent/TCPSink/Sack1 }
    vegas   { set tcpclass Agent/TCP/Vegas;   set sinkclass Agent/TCPSink }
    default usage
}
switch -- $hdrmode {
    hdr   { Agent/TCP set useHeaders_ true }
    nohdr { Agent/TCP set useHeaders_ false }
    default usage
}
# class defaults: reset() runs at agent creation and again at "$ns run"
Agent/TCP set packetSize_ 1000
Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCP set windowInit_ 1
set wnd 100000
if {$argc >= 5} { set wnd [lindex $argv 4] }
Agent/TCP set window_ $wnd
Agent/TCP/Newreno set newreno_changes_ $hoe

set ns [new Simulator]
global defaultRNG
$defaultRNG seed 1

set a [$ns node]
set b [$ns node]
$ns duplex-link $a $b 1Mb 50ms DropTail
$ns queue-limit $a $b 100000
$ns queue-limit $b $a 100000

set tcp [new $tcpclass]
set sink [new $sinkclass]
$ns attach-agent $a $tcp
$ns attach-agent $b $sink
$ns connect $tcp $sink

if {[llength $droplist] > 0} {
    set em [new ErrorModel/List]
    $em unit pkt
    $em droplist $droplist
    # inserted between the queue and the link: a dropped packet never uses the link
    $ns lossmodel $em $a $b
}

set tag "/tmp/drops_[pid]"
set ltr [open $tag.link w]
$ns trace-queue $a $b $ltr
$ns trace-queue $b $a $ltr
set vtr [open $tag.vars w]
$tcp attach $vtr
$tcp trace cwnd_
$tcp trace ssthresh_

set init_cwnd [$tcp set cwnd_]
set init_ssth [$tcp set ssthresh_]
set lastseq [expr {$nsegs - 1}]

set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp produce $nsegs"

set finished 0
proc finish {} {
    global ns tcp variant tag ltr vtr lastseq init_cwnd init_ssth finished
    if {$finished} return
    set finished 1
    close $ltr
    close $vtr
    # link trace: drops and the first ACK for the last segment
    set done_t -1
    set ndrops 0
    set f [open $tag.link r]
    while {[gets $f line] >= 0} {
        set ev [lindex $line 0]
        if {$ev eq "d"} {
            puts [format "# drop %s %s" [lindex $line 1] [lindex $line 10]]
            incr ndrops
        } elseif {$ev eq "+" && [lindex $line 4] eq "ack" && $done_t < 0 \
                      && [lindex $line 10] >= $lastseq} {
            set done_t [lindex $line 1]
        }
    }
    close $f
    # variable trace: "time saddr sport daddr dport name value"
    set cw [format %.3f $init_cwnd]
    set ss $init_ssth
    puts [format "%.6f %s %s" 0.0 $cw $ss]
    # changes made at the same instant are collapsed into one line (the state
    # after the last of them), e.g. ssthresh_ 0 -> 2 inside one slowdown()
    set f [open $tag.vars r]
    set pend_t ""
    set ncw $cw; set nss $ss
    while {[gets $f line] >= 0} {
        set t [lindex $line 0]
        set name [lindex $line 5]
        set val [lindex $line 6]
        if {$pend_t ne "" && $t ne $pend_t} {
            if {$ncw ne $cw || $nss ne $ss} {
                set cw $ncw; set ss $nss
                puts [format "%.6f %s %s" $pend_t $cw $ss]
            }
        }
        set pend_t $t
        if {$name eq "cwnd_"} { set ncw $val } elseif {$name eq "ssthresh_"} { set nss $val }
    }
    if {$pend_t ne "" && ($ncw ne $cw || $nss ne $ss)} {
        puts [format "%.6f %s %s" $pend_t $ncw $nss]
    }
    close $f
    file delete $tag.link $tag.vars
    puts [format "result %s %.6f %d %d %d %d" $variant $done_t \
              [$tcp set nrexmitpack_] [$tcp set nrexmit_] $ndrops [$tcp set ndatapack_]]
    exit 0
}
$tcp proc done {} { global ns; $ns at [$ns now] "finish" }
$ns at 1000.0 "finish"
$ns run
