// Trace sinks and small helpers for the ns-3 reference harness, compiled at run time by
// cppyy (ns-3's Python bindings cannot connect a Python function to a trace source, and a
// Python call per packet would dominate the run time). Everything a run measures is counted
// here, in C++; Python only builds the scenario and reads the counters at the end.
//
// Units: times in ns-3 Time (read as seconds by Python), sizes in bytes, counts in packets.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>

namespace renolab_ns3
{

using namespace ns3;

// ----- per flow: the sending socket -------------------------------------------------------------

/// What one TCP sender did, from its socket's trace sources.
struct SenderProbe
{
    uint64_t segmentsSent = 0;   // data segments handed to IP, retransmissions included
    uint64_t retransmits = 0;    // "Retransmission" trace: data segments sent again
    uint64_t timeouts = 0;       // retransmission timer expiries (see OnRto)
    uint64_t fastRecoveries = 0; // entries into CA_RECOVERY (fast retransmit)
    double firstSendS = -1;      // first data segment sent
    // RTT samples taken the way RFC 6298 and Linux's seq_rtt do: on an ACK that advances
    // SND.UNA, the time since the oldest newly acknowledged segment was sent, unless one of
    // the newly acknowledged segments was retransmitted (Karn). Nanosecond clock, unlike
    // ns-3's own estimator, whose samples come from the 1 ms timestamp clock.
    uint64_t rttSamples = 0;
    double rttSumS = 0;
    double rttMinS = std::numeric_limits<double>::infinity();
    double rttMaxS = 0;

    struct Sent
    {
        uint32_t end; // sequence number after the segment
        int64_t sentNs;
        bool retransmitted;
    };

    std::deque<Sent> outstanding;
    uint32_t highTx = 0; // highest sequence number sent + 1
    uint32_t highAck = 0;
    bool sawData = false;

    static bool SeqLess(uint32_t a, uint32_t b)
    {
        return static_cast<int32_t>(a - b) < 0;
    }

    void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        uint32_t len = p->GetSize();
        if (len == 0)
        {
            return; // SYN, pure ACK or FIN
        }
        uint32_t seq = h.GetSequenceNumber().GetValue();
        uint32_t end = seq + len;
        int64_t now = Simulator::Now().GetNanoSeconds();
        segmentsSent++;
        if (firstSendS < 0)
        {
            firstSendS = Simulator::Now().GetSeconds();
        }
        if (!sawData || SeqLess(highTx, end))
        {
            if (!sawData)
            {
                highAck = seq;
                sawData = true;
            }
            outstanding.push_back({end, now, false});
            highTx = end;
            return;
        }
        for (auto& s : outstanding) // a retransmission: rare, so a scan is fine
        {
            if (SeqLess(seq, s.end) && !SeqLess(end, s.end))
            {
                s.retransmitted = true;
            }
        }
    }

    void OnAck(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (!sawData || !(h.GetFlags() & TcpHeader::ACK))
        {
            return;
        }
        uint32_t ack = h.GetAckNumber().GetValue();
        if (!SeqLess(highAck, ack))
        {
            return;
        }
        highAck = ack;
        bool karn = false;
        int64_t oldest = -1;
        while (!outstanding.empty() && !SeqLess(ack, outstanding.front().end))
        {
            const Sent& s = outstanding.front();
            karn = karn || s.retransmitted;
            if (oldest < 0)
            {
                oldest = s.sentNs;
            }
            outstanding.pop_front();
        }
        if (oldest >= 0 && !karn)
        {
            double rtt = (Simulator::Now().GetNanoSeconds() - oldest) * 1e-9;
            rttSamples++;
            rttSumS += rtt;
            rttMinS = std::min(rttMinS, rtt);
            rttMaxS = std::max(rttMaxS, rtt);
        }
    }

    void OnRetransmission(Ptr<const Packet>,
                          const TcpHeader&,
                          const Address&,
                          const Address&,
                          Ptr<const TcpSocketBase>)
    {
        retransmits++;
    }

    // ns-3.44 has no timeout counter. TcpSocketBase::ReTxTimeout is the only place that sets
    // the RTO to min(2 RTO, 60 s); a new RTT sample sets it to SRTT + 4 RTTVAR (at least
    // MinRto), which does not land on exactly twice the old value.
    void OnRto(Time oldRto, Time newRto)
    {
        Time doubled = std::min(oldRto + oldRto, Seconds(60));
        if (newRto > oldRto && newRto == doubled)
        {
            timeouts++;
        }
    }

    void OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
    {
        if (now == TcpSocketState::CA_RECOVERY)
        {
            fastRecoveries++;
        }
    }

    double MeanRttS() const
    {
        return rttSamples ? rttSumS / rttSamples : -1;
    }
};

/// Connects `probe` to the socket of a BulkSendApplication; called just after the
/// application has started (it creates its socket in StartApplication).
inline void
AttachSender(Ptr<BulkSendApplication> app, SenderProbe* probe)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!s, "the bulk sender has no TCP socket");
    s->TraceConnectWithoutContext("Tx", MakeCallback(&SenderProbe::OnTx, probe));
    s->TraceConnectWithoutContext("Rx", MakeCallback(&SenderProbe::OnAck, probe));
    s->TraceConnectWithoutContext("Retransmission",
                                  MakeCallback(&SenderProbe::OnRetransmission, probe));
    s->TraceConnectWithoutContext("RTO", MakeCallback(&SenderProbe::OnRto, probe));
    s->TraceConnectWithoutContext("CongState", MakeCallback(&SenderProbe::OnCongState, probe));
}

inline void
AttachSenderAt(Time at, Ptr<Application> app, SenderProbe* probe)
{
    Ptr<BulkSendApplication> bulk = DynamicCast<BulkSendApplication>(app);
    NS_ABORT_MSG_IF(!bulk, "not a bulk sender");
    Simulator::Schedule(at, &AttachSender, bulk, probe);
}

// ----- per flow: the receiving application ------------------------------------------------------

/// Counts the bytes a flow's receiving application got, in order, and ends the run when
/// every finite transfer is complete and the scenario has no fixed duration.
struct Completion
{
    uint32_t pending = 0; // finite transfers not yet complete
    bool stopWhenDone = false;
    double lastFinishS = -1;

    void Done()
    {
        lastFinishS = Simulator::Now().GetSeconds();
        if (pending > 0 && --pending == 0 && stopWhenDone)
        {
            Simulator::Stop();
        }
    }
};

struct SinkProbe
{
    uint64_t bytes = 0;
    uint64_t target = 0; // 0: an unlimited transfer
    double finishS = -1;
    Completion* completion = nullptr;

    void OnRx(Ptr<const Packet> p, const Address&)
    {
        bytes += p->GetSize();
        if (target > 0 && finishS < 0 && bytes >= target)
        {
            finishS = Simulator::Now().GetSeconds();
            if (completion)
            {
                completion->Done();
            }
        }
    }
};

inline void
AttachSink(Ptr<Application> sink, SinkProbe* probe)
{
    NS_ABORT_MSG_IF(!DynamicCast<PacketSink>(sink), "not a packet sink");
    sink->TraceConnectWithoutContext("Rx", MakeCallback(&SinkProbe::OnRx, probe));
}

/// FlowMonitor's figures for one TCP connection, told apart by the receiver's port: data
/// packets travel to it, ACKs from it.
struct MonitoredFlow
{
    uint64_t dataDrops = 0; // dropped by a device queue or a queue disc
    uint64_t ackDrops = 0;
    uint64_t dataReceived = 0;
    double dataDelaySumS = 0; // one-way delay of the data packets received
};

inline MonitoredFlow
CountMonitoredFlow(Ptr<FlowMonitor> monitor, Ptr<FlowClassifier> classifier, uint16_t port)
{
    Ptr<Ipv4FlowClassifier> ipv4 = DynamicCast<Ipv4FlowClassifier>(classifier);
    NS_ABORT_MSG_IF(!ipv4, "not an IPv4 flow classifier");
    MonitoredFlow out;
    for (const auto& [id, stats] : monitor->GetFlowStats())
    {
        Ipv4FlowClassifier::FiveTuple t = ipv4->FindFlow(id);
        uint64_t drops = 0;
        for (uint32_t d : stats.packetsDropped)
        {
            drops += d;
        }
        if (t.destinationPort == port)
        {
            out.dataDrops += drops;
            out.dataReceived += stats.rxPackets;
            out.dataDelaySumS += stats.delaySum.GetSeconds();
        }
        else if (t.sourcePort == port)
        {
            out.ackDrops += drops;
        }
    }
    return out;
}

// ----- per link direction -----------------------------------------------------------------------

/// Queue occupancy and what left a point-to-point device. Packets waiting = the device's
/// queue plus the queue disc's, if one is installed; the packet being serialised is in
/// neither.
struct LinkProbe
{
    uint32_t deviceQueue = 0;
    uint32_t discQueue = 0;
    uint32_t maxQueue = 0;
    double areaPacketSeconds = 0; // integral of packets waiting over time
    int64_t lastChangeNs = 0;
    uint64_t packetsSent = 0;
    uint64_t bytesSent = 0; // bytes on the wire, layer-2 header included
    uint64_t queueDrops = 0;
    uint64_t marks = 0;
    uint64_t lossDrops = 0; // dropped by the receiving device's error model

    // A level counts once it has lasted: ns-3 passes a packet that finds the link idle
    // through the disc and the device queue within the same instant, and such a packet never
    // waited.
    void Advance()
    {
        int64_t now = Simulator::Now().GetNanoSeconds();
        if (now > lastChangeNs)
        {
            uint32_t level = deviceQueue + discQueue;
            areaPacketSeconds += double(level) * (now - lastChangeNs) * 1e-9;
            maxQueue = std::max(maxQueue, level);
            lastChangeNs = now;
        }
    }

    void OnDeviceQueue(uint32_t, uint32_t n)
    {
        Advance();
        deviceQueue = n;
    }

    void OnDiscQueue(uint32_t, uint32_t n)
    {
        Advance();
        discQueue = n;
    }

    void OnTx(Ptr<const Packet> p)
    {
        packetsSent++;
        bytesSent += p->GetSize();
    }

    void OnDeviceDrop(Ptr<const Packet>)
    {
        queueDrops++;
    }

    void OnDiscDrop(Ptr<const QueueDiscItem>)
    {
        queueDrops++;
    }

    void OnMark(Ptr<const QueueDiscItem>, const char*)
    {
        marks++;
    }

    void OnLoss(Ptr<const Packet>)
    {
        lossDrops++;
    }

    /// Time-average of the packets waiting from 0 to now.
    double MeanQueue()
    {
        Advance();
        double t = Simulator::Now().GetSeconds();
        return t > 0 ? areaPacketSeconds / t : 0;
    }
};

/// Connects `probe` to the sending device `dev` (and its queue disc, if any) and to the
/// receiving device `peer`, where an error model drops.
inline void
AttachLink(Ptr<NetDevice> dev, Ptr<NetDevice> peer, Ptr<QueueDisc> disc, LinkProbe* probe)
{
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
    NS_ABORT_MSG_IF(!p2p, "not a point-to-point device");
    Ptr<Queue<Packet>> q = p2p->GetQueue();
    q->TraceConnectWithoutContext("PacketsInQueue",
                                  MakeCallback(&LinkProbe::OnDeviceQueue, probe));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&LinkProbe::OnDeviceDrop, probe));
    p2p->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&LinkProbe::OnTx, probe));
    peer->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&LinkProbe::OnLoss, probe));
    if (disc)
    {
        disc->TraceConnectWithoutContext("PacketsInQueue",
                                         MakeCallback(&LinkProbe::OnDiscQueue, probe));
        disc->TraceConnectWithoutContext("Drop", MakeCallback(&LinkProbe::OnDiscDrop, probe));
        disc->TraceConnectWithoutContext("Mark", MakeCallback(&LinkProbe::OnMark, probe));
    }
}

/// Sets the capacity of a point-to-point device's own queue, in packets.
inline void
SetDeviceQueue(Ptr<NetDevice> dev, uint32_t packets)
{
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
    NS_ABORT_MSG_IF(!p2p, "not a point-to-point device");
    p2p->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, packets));
}

/// Sets the TCP congestion control a node's next sockets get.
inline void
SetSocketType(Ptr<Node> node, const std::string& typeName)
{
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    NS_ABORT_MSG_IF(!tcp, "node has no TCP");
    tcp->SetAttribute("SocketType", TypeIdValue(TypeId::LookupByName(typeName)));
}

// ----- 802.11 -----------------------------------------------------------------------------------

/// Frame errors applied after the PHY has received a frame (WifiPhy's post-reception error
/// model). ns-3 hands the model the frame body (LLC/SNAP header and IP packet for a data
/// frame, nothing for an ACK); the MAC header and FCS are added back here so that a bit
/// error rate applies to every bit of the MPDU.
class FrameErrorModel : public ErrorModel
{
  public:
    static constexpr uint32_t DATA_MAC_OVERHEAD = 24 + 4; // MAC header + FCS (802.11-2020 9.3.2.1)
    static constexpr uint32_t ACK_FRAME_BYTES = 14;       // 802.11-2020 9.3.1.3

    double ber = 0;        // per bit, or
    double frameRate = 0;  // per frame
    bool dataOnly = true;  // only data frames (LLC/SNAP bodies), not ACKs or management
    uint64_t corrupted = 0;
    Ptr<UniformRandomVariable> uniform = CreateObject<UniformRandomVariable>();

    /// Set up from Python (cppyy cannot assign a member through a Ptr).
    void Configure(double bitErrorRate, double frameErrorRate, bool onlyData, int64_t stream)
    {
        ber = bitErrorRate;
        frameRate = frameErrorRate;
        dataOnly = onlyData;
        uniform->SetStream(stream);
    }

  private:
    static bool IsDataBody(Ptr<Packet> p)
    {
        if (p->GetSize() < 8)
        {
            return false;
        }
        uint8_t b[3];
        p->CopyData(b, 3);
        return b[0] == 0xAA && b[1] == 0xAA && b[2] == 0x03; // LLC/SNAP (RFC 1042)
    }

    bool DoCorrupt(Ptr<Packet> p) override
    {
        bool data = IsDataBody(p);
        if (dataOnly && !data)
        {
            return false;
        }
        double pErr = frameRate;
        if (ber > 0)
        {
            uint32_t bytes = p->GetSize() ? p->GetSize() + DATA_MAC_OVERHEAD : ACK_FRAME_BYTES;
            pErr = 1.0 - std::pow(1.0 - ber, 8.0 * bytes);
        }
        bool lost = uniform->GetValue() < pErr;
        corrupted += lost;
        return lost;
    }

    void DoReset() override
    {
    }
};

/// What one 802.11 station's MAC and PHY did.
struct WifiProbe
{
    uint64_t dataFrames = 0;   // data frames sent (first attempts and retries)
    uint64_t dataRetries = 0;  // data frames sent with the Retry bit set
    uint64_t txDataFailed = 0; // MacTxDataFailed: an attempt that got no ACK
    uint64_t retryLimitDrops = 0;
    uint64_t queueDrops = 0;
    uint64_t lifetimeDrops = 0;
    uint64_t ackFrames = 0;
    uint64_t ackRateBps = 0; // rate of the last ACK sent
    uint64_t dataRateBps = 0;
    uint64_t handedToMac = 0; // packets from IP/ARP ("MacTx")
    uint64_t dataEnqueued = 0;
    LinkProbe queue; // the MAC queue's occupancy (the frame in transmission included)

    // A full WifiMacQueue (drop-newest) refuses a packet without any trace in ns-3.44
    // (WifiMacQueue::DoEnqueue returns false before Queue::DropBeforeEnqueue), so the drops
    // are what reached the MAC but never entered its queue.
    uint64_t SilentQueueDrops() const
    {
        return handedToMac - dataEnqueued;
    }

    void OnMacTx(Ptr<const Packet>)
    {
        handedToMac++;
    }

    Mac48Address self; // this station's address

    // Data MPDUs this station originated (an AP also queues the broadcasts it relays).
    void OnEnqueue(Ptr<const WifiMpdu> mpdu)
    {
        const WifiMacHeader& h = mpdu->GetHeader();
        if (h.IsData() && (h.IsFromDs() ? h.GetAddr3() : h.GetAddr2()) == self)
        {
            dataEnqueued++;
        }
    }

    void OnSniffTx(Ptr<const Packet> p, uint16_t, WifiTxVector v, MpduInfo, uint16_t)
    {
        WifiMacHeader h;
        p->PeekHeader(h);
        uint64_t rate = v.GetMode().GetDataRate(v);
        if (h.IsData())
        {
            dataFrames++;
            dataRetries += h.IsRetry();
            dataRateBps = rate;
        }
        else if (h.IsAck())
        {
            ackFrames++;
            ackRateBps = rate;
        }
    }

    void OnDataFailed(Mac48Address)
    {
        txDataFailed++;
    }

    void OnDropped(WifiMacDropReason reason, Ptr<const WifiMpdu>)
    {
        switch (reason)
        {
        case WIFI_MAC_DROP_FAILED_ENQUEUE:
            queueDrops++;
            break;
        case WIFI_MAC_DROP_REACHED_RETRY_LIMIT:
            retryLimitDrops++;
            break;
        default:
            lifetimeDrops++;
        }
    }
};

inline void
AttachWifi(Ptr<NetDevice> dev, WifiProbe* probe, Ptr<FrameErrorModel> errors)
{
    Ptr<WifiNetDevice> w = DynamicCast<WifiNetDevice>(dev);
    NS_ABORT_MSG_IF(!w, "not a Wi-Fi device");
    w->GetPhy()->TraceConnectWithoutContext("MonitorSnifferTx",
                                            MakeCallback(&WifiProbe::OnSniffTx, probe));
    w->GetRemoteStationManager()->TraceConnectWithoutContext(
        "MacTxDataFailed",
        MakeCallback(&WifiProbe::OnDataFailed, probe));
    w->GetMac()->TraceConnectWithoutContext("DroppedMpdu",
                                            MakeCallback(&WifiProbe::OnDropped, probe));
    probe->self = w->GetMac()->GetAddress();
    w->GetMac()->TraceConnectWithoutContext("MacTx", MakeCallback(&WifiProbe::OnMacTx, probe));
    Ptr<WifiMacQueue> q = w->GetMac()->GetTxop()->GetWifiMacQueue();
    q->TraceConnectWithoutContext("Enqueue", MakeCallback(&WifiProbe::OnEnqueue, probe));
    q->TraceConnectWithoutContext("PacketsInQueue",
                                  MakeCallback(&LinkProbe::OnDeviceQueue, &probe->queue));
    if (errors)
    {
        w->GetPhy()->SetPostReceptionErrorModel(errors);
    }
}

} // namespace renolab_ns3
