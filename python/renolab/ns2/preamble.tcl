# ---- renolab support procedures
proc rl_subseed {k} {
    # A seed for ns-2's RNG (1 .. 2^31-1) for stream k of the run's seed, scrambled
    # (splitmix64): ns-2's MRG32k3a "seed n" sets its whole state to n, so the i-th draw of
    # seed n is n times that of seed 1 (mod 1); nearby seeds would give related streams.
    global rl_seed
    set m 0xFFFFFFFFFFFFFFFF
    set x [expr {($rl_seed * 0x9E3779B97F4A7C15 + ($k + 1) * 0xD1B54A32D192ED03) & $m}]
    set x [expr {(($x ^ ($x >> 30)) * 0xBF58476D1CE4E5B9) & $m}]
    set x [expr {(($x ^ ($x >> 27)) * 0x94D049BB133111EB) & $m}]
    return [expr {1 + (($x ^ ($x >> 31)) % 2147483646)}]
}
set ns [new Simulator]
global defaultRNG
set rl_mainseed [rl_subseed 0]
$defaultRNG seed $rl_mainseed
set rl_tracefile [file join [expr {[info exists env(TMPDIR)] ? $env(TMPDIR) : "/tmp"}] "renolab_ns2_[pid].tr"]
set rl_trace [open $rl_tracefile w]
$ns trace-all $rl_trace
set rl_nflows 0
set rl_finished 0
set rl_scratch [new RNG]

proc rl_new {cls params} {
    # class defaults first (some values are read when the agent is built), then the instance
    foreach {k v} $params { $cls set $k $v }
    set o [new $cls]
    foreach {k v} $params { $o set $k $v }
    return $o
}

# TcpAgent::reset() draws boot_time_ (the phase of the agent's RTT clock) from the default
# RNG when "$ns run" resets the agents; boot_time_ cannot be set from Tcl. Reseeding just
# before makes it tcpTick_ * (first draw of that seed).
proc rl_boot {k agent tick want} {
    global rl_bootseed rl_f rl_scratch
    if {$want eq ""} {
        set s [rl_subseed [expr {1000 + $k}]]
    } else {
        set s 1; set best 2.0
        for {set c 1} {$c <= 20000} {incr c} {
            $rl_scratch seed $c
            set d [expr {abs($tick * [$rl_scratch uniform 0 1] - $want)}]
            if {$d < $best} { set best $d; set s $c }
        }
    }
    $rl_scratch seed $s
    set rl_bootseed($agent) $s
    set rl_f($k,phase) [expr {$tick * [$rl_scratch uniform 0 1]}]
}
Agent/TCP instproc reset {} {
    global defaultRNG rl_bootseed rl_mainseed
    if {[info exists rl_bootseed($self)]} {
        $defaultRNG seed $rl_bootseed($self)
        $self cmd reset
        $defaultRNG seed $rl_mainseed
    } else {
        $self cmd reset
    }
}

proc rl_start_draw {k lo hi} {
    set r [new RNG]
    $r seed [rl_subseed [expr {2000 + $k}]]
    return [$r uniform $lo $hi]
}
proc rl_uniform_ranvar {seed} {
    set r [new RNG]; $r seed $seed
    set v [new RandomVariable/Uniform]; $v use-rng $r
    return $v
}

# Gilbert-Elliott: per packet, judge with the current state's loss probability, then move.
Class ErrorModel/RenolabGE -superclass ErrorModel/MultiState
ErrorModel/RenolabGE instproc init {} { $self next {} {} {} pkt pkt 0 none }
ErrorModel/RenolabGE instproc corrupt {} {
    $self instvar rl_rng rl_bad rl_p
    set loss [expr {[$rl_rng uniform 0 1] < [lindex $rl_p [expr {$rl_bad ? 3 : 2}]]}]
    if {[$rl_rng uniform 0 1] < [lindex $rl_p [expr {$rl_bad ? 1 : 0}]]} { set rl_bad [expr {!$rl_bad}] }
    return $loss
}
proc rl_gilbert_elliott {p_gb p_bg loss_good loss_bad seed} {
    set em [new ErrorModel/RenolabGE]
    $em set rl_rng [new RNG]; [$em set rl_rng] seed $seed
    $em set rl_bad 0
    $em set rl_p [list $p_gb $p_bg $loss_good $loss_bad]
    return $em
}

proc rl_tcp_stop {agent} {
    # the application stops offering data: what has been sent is still delivered
    $agent advance [expr {[$agent set maxseq_] + 1}]
}

proc rl_flow {k name variant kind agent src dst fid off nsegs size total} {
    global rl_f rl_nflows
    foreach {key v} [list name $name variant $variant kind $kind agent $agent src $src dst $dst \
                         fid $fid off $off nsegs $nsegs size $size total $total] {
        set rl_f($k,$key) $v
    }
    incr rl_nflows
}
proc rl_snapshot {k} {
    global rl_f
    if {[info exists rl_f($k,snap)]} return
    set a $rl_f($k,agent)
    set rl_f($k,snap) [list [$a set nrexmitpack_] [$a set nrexmit_]]
}
proc rl_done {k} {
    global ns rl_pending rl_stop_when_done rl_f
    if {[info exists rl_f($k,snap)]} return
    rl_snapshot $k
    incr rl_pending -1
    if {$rl_pending <= 0 && $rl_stop_when_done} { $ns at [$ns now] rl_finish }
}

proc rl_finish {} {
    global rl_f rl_nflows rl_trace rl_tracefile rl_finished
    if {$rl_finished} return
    set rl_finished 1
    close $rl_trace
    for {set k 0} {$k < $rl_nflows} {incr k} {
        if {$rl_f($k,kind) eq "tcp"} { rl_snapshot $k }
        set idx($rl_f($k,fid)) $k
        set src($k) $rl_f($k,src); set dst($k) $rl_f($k,dst); set off($k) $rl_f($k,off)
        set tcp($k) [expr {$rl_f($k,kind) eq "tcp"}]
        set first($k) ""; set finish($k) ""; set next($k) $off($k); set sent($k) 0; set syns($k) 0
        set rcvd($k) 0; set rbytes($k) 0; set drops($k) 0; set ddrops($k) 0; set adrops($k) 0
    }
    set f [open $rl_tracefile r]
    while {[gets $f line] >= 0} {
        lassign [split $line " "] ev t from to ty size flags fid s d seq
        if {![info exists idx($fid)]} continue
        set k $idx($fid)
        if {$ev eq "+"} {
            if {$from != $src($k) || $ty eq "ack"} continue
            if {$tcp($k) && $seq < $off($k)} { incr syns($k); continue }
            incr sent($k)
            if {$first($k) eq ""} { set first($k) $t }
        } elseif {$ev eq "r"} {
            if {$to != $dst($k) || $ty eq "ack"} continue
            if {!$tcp($k)} { incr rcvd($k); incr rbytes($k) $size; continue }
            if {$seq < $off($k)} continue
            set got($k,$seq) 1
            while {[info exists got($k,$next($k))]} { incr next($k) }
            if {$finish($k) eq "" && $rl_f($k,nsegs) >= 0 && $next($k) - $off($k) >= $rl_f($k,nsegs)} {
                set finish($k) $t
            }
        } elseif {$ev eq "d"} {
            incr drops($k)
            if {$ty eq "ack"} { incr adrops($k) } else { incr ddrops($k) }
        }
    }
    close $f
    file delete $rl_tracefile
    puts "# renolab-ns2 flows"
    puts "flow,variant,bytes_delivered,completion_time_s,retransmits,timeouts,drops,data_drops,ack_drops,segments_sent,segments_delivered,first_send_s,finish_s,clock_phase_s"
    for {set k 0} {$k < $rl_nflows} {incr k} {
        set tc ""
        if {$first($k) ne "" && $finish($k) ne ""} { set tc [expr {$finish($k) - $first($k)}] }
        if {$tcp($k)} {
            set segs [expr {$next($k) - $off($k)}]
            if {$rl_f($k,nsegs) >= 0 && $segs > $rl_f($k,nsegs)} { set segs $rl_f($k,nsegs) }
            set bytes [expr {$segs * $rl_f($k,size)}]
            if {$rl_f($k,total) >= 0 && $bytes > $rl_f($k,total)} { set bytes $rl_f($k,total) }
            lassign $rl_f($k,snap) rexmit timeouts
            if {$syns($k) > 1} { set rexmit [expr {$rexmit - ($syns($k) - 1)}] }
            set phase $rl_f($k,phase)
        } else {
            set segs $rcvd($k); set bytes $rbytes($k); set rexmit 0; set timeouts 0; set phase ""
        }
        puts [join [list $rl_f($k,name) $rl_f($k,variant) $bytes $tc $rexmit $timeouts $drops($k) \
                        $ddrops($k) $adrops($k) $sent($k) $segs $first($k) $finish($k) $phase] ","]
    }
    exit 0
}
