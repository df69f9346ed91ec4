"""One 802.11b station and its access point in ns-3 (DCF, no QoS), TCP between them.

- PHY: ns-3's Yans model (log-distance propagation, default thresholds); at the default
  5 m the signal is so strong that the PHY itself loses nothing, and every frame error
  comes from the error model of the scenario file.
- Rates: ConstantRateWifiManager, data frames at ``data_rate``; RTS/CTS, beacons and other
  broadcast frames at ``basic_rate``. MAC ACKs are sent at ns-3's choice, the highest rate
  of the BSS basic rate set not above the data frame's: ns-3.44's 802.11b AP puts 1 and
  2 Mb/s in that set and offers no setting, so after an 11 Mb/s frame the ACK goes at
  2 Mb/s (wifi.csv reports the rate seen). The preamble is long: ns-3 sends the short DSSS
  preamble only to ERP (802.11g) stations.
- Buffer: flow control off and no queue disc, so the MAC queue (WifiMacQueue, ``queue_limit``
  packets, the frame in transmission included) is the station's only buffer; its 500 ms
  lifetime limit is lifted. A full queue drops the newest packet without any trace in
  ns-3.44; those drops are counted as the packets the MAC got but never queued.
- Frame errors: :class:`renolab_ns3::FrameErrorModel` (probes.cc) after reception at both
  ends: a bit error rate over the whole MPDU, or a per-frame rate, on data frames only
  (``applies_to = "data"``) or on every frame, MAC ACKs included (``"all"``).
- Retries: ``retry_limit`` transmission attempts per frame (WifiMac::FrameRetryLimit,
  dot11ShortRetryLimit: with RTS/CTS off every frame is below the RTS threshold).
"""

from __future__ import annotations

from typing import Any

from ns3ref.sim import Ns3Run, configure_tcp
from ns3ref.spec import DSSS_MODES, WIFI_NODES

#: RTS/CTS threshold that no frame reaches (ns-3's largest allowed value).
RTS_OFF_THRESHOLD = 4692480
#: A MAC queue lifetime no run reaches (ns-3's default, 500 ms, drops old frames).
NO_LIFETIME_S = 1e6


class WifiRun(Ns3Run):
    """The Wi-Fi scenario."""

    def build(self) -> None:
        ns, probes, sc = self.ns, self.probes, self.scenario
        w = sc.wifi
        self.reset()
        configure_tcp(ns, sc.mss)
        ns.Config.SetDefault("ns3::WifiMacQueue::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{w.queue_limit}p")))
        ns.Config.SetDefault("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(NO_LIFETIME_S)))
        ns.Config.SetDefault("ns3::WifiMac::FrameRetryLimit", ns.UintegerValue(w.retry_limit))
        ns.Config.SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold",
                             ns.UintegerValue(0 if w.rts_cts else RTS_OFF_THRESHOLD))
        ns.Config.SetDefault("ns3::ConstantRateWifiManager::DataMode", ns.StringValue(DSSS_MODES[w.data_rate_bps]))
        ns.Config.SetDefault("ns3::ConstantRateWifiManager::ControlMode", ns.StringValue(DSSS_MODES[w.basic_rate_bps]))
        ns.Config.SetDefault("ns3::WifiRemoteStationManager::NonUnicastMode",
                             ns.WifiModeValue(ns.WifiMode(DSSS_MODES[w.basic_rate_bps])))

        container = ns.NodeContainer()
        container.Create(2)
        self.nodes = {name: container.Get(i) for i, name in enumerate(WIFI_NODES)}
        for name, x in (("sta", w.distance_m), ("ap", 0.0)):
            mobility = ns.CreateObject[ns.ConstantPositionMobilityModel]()
            mobility.SetPosition(ns.Vector(x, 0.0, 0.0))
            self.nodes[name].AggregateObject(mobility)

        channel = ns.YansWifiChannelHelper.Default()
        phy = ns.YansWifiPhyHelper()
        phy.SetChannel(channel.Create())
        wifi = ns.WifiHelper()
        wifi.SetStandard(ns.WIFI_STANDARD_80211b)
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager")
        wifi.DisableFlowControl()
        ssid = ns.Ssid("renolab")
        ns.Config.SetDefault("ns3::WifiMac::Ssid", ns.SsidValue(ssid))
        ns.Config.SetDefault("ns3::StaWifiMac::ActiveProbing", ns.BooleanValue(False))
        mac = ns.WifiMacHelper()
        mac.SetType("ns3::StaWifiMac")
        sta_devices = wifi.Install(phy, mac, self.nodes["sta"])
        mac.SetType("ns3::ApWifiMac")
        ap_devices = wifi.Install(phy, mac, self.nodes["ap"])
        wifi.AssignStreams(sta_devices, 3000)
        wifi.AssignStreams(ap_devices, 3100)

        ns.InternetStackHelper().Install(container)
        devices = ns.NetDeviceContainer(sta_devices, ap_devices)
        addr = ns.Ipv4AddressHelper()
        addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
        interfaces = addr.Assign(devices)
        self.addresses = {"sta": interfaces.GetAddress(0), "ap": interfaces.GetAddress(1)}

        self.wifi_probes = {}
        for i, name in enumerate(WIFI_NODES):
            errors = ns.Ptr[probes.FrameErrorModel]()
            if w.error is not None:
                errors = ns.CreateObject[probes.FrameErrorModel]()
                ber = w.error.value if w.error.kind == "ber" else 0.0
                per_frame = w.error.value if w.error.kind == "uniform" else 0.0
                errors.Configure(ber, per_frame, w.error_applies_to == "data", 3200 + i)
            probe = probes.WifiProbe()
            probes.AttachWifi(devices.Get(i), probe, errors)
            self.wifi_probes[name] = (probe, errors)
        self.keep += [channel, phy, wifi, mac, sta_devices, ap_devices, devices, addr, interfaces]
        self.install_flows(self.nodes, self.addresses)

    def link_rows(self) -> list[dict[str, Any]]:
        return []

    def wifi_rows(self) -> list[dict[str, Any]]:
        """One row per station: what its MAC sent, retried and dropped."""
        rows = []
        for name, (p, errors) in self.wifi_probes.items():
            rows.append({
                "node": name,
                "data_frames": int(p.dataFrames),
                "mac_retries": int(p.dataRetries),
                "tx_data_failed": int(p.txDataFailed),
                "retry_limit_drops": int(p.retryLimitDrops),
                "queue_drops": int(p.queueDrops) + int(p.SilentQueueDrops()),
                "lifetime_drops": int(p.lifetimeDrops),
                "frames_corrupted_on_receipt": int(errors.corrupted) if errors else 0,
                "ack_frames": int(p.ackFrames),
                "data_rate_bps": int(p.dataRateBps),
                "ack_rate_bps": int(p.ackRateBps),
                "mean_queue": p.queue.MeanQueue(),  # first: it closes the last interval
                "max_queue": int(p.queue.maxQueue),
            })
        return rows


#: Columns of wifi.csv.
WIFI_COLUMNS = (
    "node", "data_frames", "mac_retries", "tx_data_failed", "retry_limit_drops", "queue_drops",
    "lifetime_drops", "frames_corrupted_on_receipt", "ack_frames", "data_rate_bps", "ack_rate_bps",
    "max_queue", "mean_queue",
)
