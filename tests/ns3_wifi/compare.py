"""One TCP flow over an 802.11b cell, in ns-3.44 (`WifiNetDevice`) and in renolab, side by
side: goodput, the station's data frames, MAC retries and frames dropped after the retry
limit, without frame errors and with bit errors on every frame (docs/validation.md).

    pip install ns3            # the ns-3.44 wheel (PyPI `ns3`)
    python tests/ns3_wifi/compare.py --runs 5 --duration 30

The cell, in both simulators: a station and its access point, 802.11b (DSSS, long
preamble), data frames at 11 Mb/s, RTS/CTS off, retry limit 7, a 500-packet MAC queue (the
frame in service counted), one NewReno flow from the station to the access point (1460-byte
segments, IW 10, delayed ACK every 2 segments / 200 ms, min RTO 1 s, no SACK, no timestamps),
started at 0.5 s. The receiver's window is 64 segments, below what the MAC queue holds: the
flow never overflows it, so what the two simulators do differently is the MAC's, not TCP's
loss recovery. Frame errors: a bit error rate over the whole MPDU
(MAC header, LLC/SNAP, packet, FCS) of every frame at both ends, Acks included (ns-3's
`RateErrorModel` in bit units as the PHYs' post-reception error model; renolab's `ber` loss
on both stations).

Where the two differ by construction: ns-3's access point announces 1 and 2 Mb/s as its
basic rates and acknowledges an 11 Mb/s frame at 2 Mb/s (renolab is given
`basic_rate = "2Mbps"` to match); ns-3 also sends beacons (every 102.4 ms, 1 Mb/s) and
associates the station first, and opens the connection with a handshake; renolab does none
of these.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from typing import Any

#: Cases: name -> bit error rate on every frame (None: no frame errors).
CASES = {"clean": None, "ber 1e-5": 1e-5, "ber 3e-5": 3e-5}
MSS = 1460
START_S = 0.5
QUEUE_PACKETS = 500
RETRY_LIMIT = 7
#: The receiver's window, segments (ns-3: its receive buffer).
WINDOW = 64

PROBE = r"""
#include "ns3/wifi-module.h"
#include "ns3/error-model.h"
namespace rlwifi {
using namespace ns3;
struct Counters {
    uint64_t data = 0;
    uint64_t retries = 0;
    uint64_t final_failed = 0;
};
static void OnTx(Counters* c, Ptr<const Packet> p, double) {
    WifiMacHeader h;
    p->PeekHeader(h);
    if (h.IsData()) {
        c->data++;
        c->retries += h.IsRetry();
    }
}
static void OnFinalFailed(Counters* c, Mac48Address) { c->final_failed++; }
void Attach(Ptr<NetDevice> dev, Counters* c, double ber, int64_t stream) {
    Ptr<WifiNetDevice> w = DynamicCast<WifiNetDevice>(dev);
    w->GetPhy()->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&OnTx, c));
    w->GetRemoteStationManager()->TraceConnectWithoutContext(
        "MacTxFinalDataFailed", MakeBoundCallback(&OnFinalFailed, c));
    if (ber > 0) {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_BIT);
        em->SetRate(ber);
        em->AssignStreams(stream);
        w->GetPhy()->SetPostReceptionErrorModel(em);
    }
}
}
"""


def ns3_run(ber: float | None, run: int, duration_s: float) -> dict[str, Any]:
    """One ns-3 run: goodput (bit/s of payload delivered from START_S to the end) and the
    station's frame counters."""
    from ns import ns  # noqa: PLC0415
    import cppyy  # noqa: PLC0415

    if not hasattr(cppyy.gbl, "rlwifi"):
        cppyy.cppdef(PROBE)
    probe = cppyy.gbl.rlwifi
    ns.Config.Reset()
    ns.RngSeedManager.ResetNextStreamIndex()
    ns.Ipv4AddressGenerator.Reset()
    ns.Mac48Address.ResetAllocationIndex()
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(run)
    for name, value in {
        "ns3::TcpL4Protocol::SocketType": ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpNewReno")),
        "ns3::TcpL4Protocol::RecoveryType": ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")),
        "ns3::TcpSocket::SegmentSize": ns.UintegerValue(MSS),
        "ns3::TcpSocket::InitialCwnd": ns.UintegerValue(10),
        "ns3::TcpSocket::DelAckCount": ns.UintegerValue(2),
        "ns3::TcpSocket::DelAckTimeout": ns.TimeValue(ns.MilliSeconds(200)),
        "ns3::TcpSocket::SndBufSize": ns.UintegerValue(16 << 20),
        "ns3::TcpSocket::RcvBufSize": ns.UintegerValue(WINDOW * MSS),
        "ns3::TcpSocketBase::MinRto": ns.TimeValue(ns.Seconds(1)),
        "ns3::TcpSocketBase::Sack": ns.BooleanValue(False),
        "ns3::TcpSocketBase::Timestamp": ns.BooleanValue(False),
        "ns3::WifiMacQueue::MaxSize": ns.QueueSizeValue(ns.QueueSize(f"{QUEUE_PACKETS}p")),
        "ns3::WifiMacQueue::MaxDelay": ns.TimeValue(ns.Seconds(1e6)),
        "ns3::WifiMac::FrameRetryLimit": ns.UintegerValue(RETRY_LIMIT),
        "ns3::WifiRemoteStationManager::RtsCtsThreshold": ns.UintegerValue(4692480),
        "ns3::ConstantRateWifiManager::DataMode": ns.StringValue("DsssRate11Mbps"),
        "ns3::ConstantRateWifiManager::ControlMode": ns.StringValue("DsssRate1Mbps"),
        "ns3::StaWifiMac::ActiveProbing": ns.BooleanValue(False),
    }.items():
        ns.Config.SetDefault(name, value)
    nodes = ns.NodeContainer()
    nodes.Create(2)  # 0: station, 1: access point
    for i, x in enumerate((5.0, 0.0)):
        mobility = ns.CreateObject[ns.ConstantPositionMobilityModel]()
        mobility.SetPosition(ns.Vector(x, 0.0, 0.0))
        nodes.Get(i).AggregateObject(mobility)
    channel = ns.YansWifiChannelHelper.Default()
    phy = ns.YansWifiPhyHelper()
    phy.SetChannel(channel.Create())
    wifi = ns.WifiHelper()
    wifi.SetStandard(ns.WIFI_STANDARD_80211b)
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager")
    wifi.DisableFlowControl()
    ns.Config.SetDefault("ns3::WifiMac::Ssid", ns.SsidValue(ns.Ssid("renolab")))
    mac = ns.WifiMacHelper()
    mac.SetType("ns3::StaWifiMac")
    sta = wifi.Install(phy, mac, nodes.Get(0))
    mac.SetType("ns3::ApWifiMac")
    ap = wifi.Install(phy, mac, nodes.Get(1))
    wifi.AssignStreams(sta, 100)
    wifi.AssignStreams(ap, 200)
    ns.InternetStackHelper().Install(nodes)
    devices = ns.NetDeviceContainer(sta, ap)
    addresses = ns.Ipv4AddressHelper()
    addresses.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    # Without flow control the devices get no queue disc: the MAC queue is the station's
    # only buffer, as in renolab.
    interfaces = addresses.Assign(devices)
    counters = [probe.Counters(), probe.Counters()]
    for i in range(2):
        probe.Attach(devices.Get(i), counters[i], ber or 0.0, 300 + i)
    port = 5001
    sink_helper = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_apps = sink_helper.Install(nodes.Get(1))
    sink_apps.Start(ns.Seconds(0.0))
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(interfaces.GetAddress(1), port).ConvertTo())
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bulk.SetAttribute("SendSize", ns.UintegerValue(MSS * 8))
    send_apps = bulk.Install(nodes.Get(0))
    send_apps.Start(ns.Seconds(START_S))
    ns.Simulator.Stop(ns.Seconds(duration_s))
    ns.Simulator.Run()
    received = ns.DynamicCast[ns.PacketSink](sink_apps.Get(0)).GetTotalRx()
    out = {
        "goodput_bps": received * 8 / (duration_s - START_S),
        "data_frames": int(counters[0].data),
        "retries": int(counters[0].retries),
        "retry_drops": int(counters[0].final_failed),
        "ack_frames_ap": int(counters[1].data),
    }
    ns.Simulator.Destroy()
    return out


def renolab_run(ber: float | None, seed: int, duration_s: float) -> dict[str, Any]:
    from renolab import Scenario  # noqa: PLC0415

    medium: dict[str, Any] = {
        "name": "wlan", "kind": "wifi", "standard": "802.11b", "data_rate": "11Mbps", "basic_rate": "2Mbps",
        "nodes": ["sta", "ap"], "queue": {"kind": "droptail", "limit": QUEUE_PACKETS},
        "short_retry_limit": RETRY_LIMIT,
    }
    if ber:
        medium["loss"] = {"kind": "ber", "ber": ber}
    scenario = Scenario(
        simulation={"seed": seed, "duration": f"{duration_s:g}s"},
        medium=[medium],
        flow=[{
            "name": "up", "variant": "newreno", "src": "sta", "dst": "ap", "start": f"{START_S:g}s", "mss": MSS,
            "options": {"initial_window": 10, "min_rto": "1s", "window": WINDOW},
            "receiver": {"delayed_ack": True, "ack_every": 2, "delack_timeout": "200ms"},
        }],
    )
    result = scenario.run()
    flow = result.flows.iloc[0]
    sta = result.stations.set_index("node").loc["sta"]
    ap = result.stations.set_index("node").loc["ap"]
    return {
        "goodput_bps": flow.bytes_delivered * 8 / (duration_s - START_S),
        "data_frames": int(sta.frames_sent),
        "retries": int(sta.retries),
        "retry_drops": int(sta.retry_drops),
        "ack_frames_ap": int(ap.frames_sent),
    }


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % confidence interval (Student's t)."""
    t95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, math.nan
    return m, t95.get(len(values) - 1, 2.0) * statistics.stdev(values) / math.sqrt(len(values))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--duration", type=float, default=30.0)
    args = parser.parse_args(argv)
    columns = ("goodput_bps", "data_frames", "retries", "retry_drops", "ack_frames_ap")
    print("| frame errors | simulator | goodput (Mb/s) | station's data frames | MAC retries | dropped after 7 attempts | AP's data frames (TCP ACKs) |")
    print("|---|---|---|---|---|---|---|")
    for case, ber in CASES.items():
        for name, one in (("ns-3.44", ns3_run), ("renolab", renolab_run)):
            rows = [one(ber, run + 1, args.duration) for run in range(args.runs)]
            cells = []
            for c in columns:
                m, h = mean_ci([r[c] for r in rows])
                cells.append(f"{m / 1e6:.3f} ± {h / 1e6:.3f}" if c == "goodput_bps" else f"{m:.0f} ± {h:.0f}")
            print(f"| {case} | {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
