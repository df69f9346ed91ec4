"""pcap files: Wireshark's reader and TCP analysis see what renolab simulated."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import renolab

pytestmark = pytest.mark.skipif(
    shutil.which("tshark") is None, reason="tshark (Debian package tshark) is not installed"
)


def scenario(variant: str = "reno") -> renolab.Scenario:
    return renolab.Scenario(
        link=[
            {"name": "access", "from": "s", "to": "g", "rate": "100Mbps", "delay": "1ms"},
            {"name": "path", "from": "g", "to": "r", "rate": "10Mbps", "delay": "20ms",
             "queue": {"kind": "droptail", "limit": 1000},
             "loss": {"kind": "drop", "flow": "f", "segments": [30, 90, 150]}},
        ],
        flow=[{"name": "f", "variant": variant, "src": "s", "dst": "r", "bytes": 200 * 1000, "mss": 1000,
               "receiver": {"delayed_ack": False}, "options": {"handshake": True}}],
    )


def tshark(path, *args: str) -> str:
    run = subprocess.run(["tshark", "-r", str(path), *args], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    # tshark's only permitted remark is the one about running as root (CI does).
    warnings = [line for line in run.stderr.splitlines() if line.strip() and "could be dangerous" not in line]
    assert not warnings, f"tshark warned: {run.stderr}"
    return run.stdout


@pytest.mark.parametrize("variant", ["reno", "sack"])
def test_tshark_sees_the_three_retransmissions_and_every_data_packet(tmp_path, variant):
    result = scenario(variant).run(pcap_dir=tmp_path)
    flow = result.flows.iloc[0]
    assert flow.retransmits == 3
    pcap = tmp_path / "path.pcap"
    # Data packets as captured where the drops happen (after the queue, before the loss).
    data = tshark(pcap, "-Y", "tcp.len > 0 && tcp.srcport == 10000", "-T", "fields", "-e", "frame.number")
    assert len(data.split()) == flow.segments_sent
    retx = tshark(pcap, "-Y", "tcp.analysis.retransmission || tcp.analysis.fast_retransmission",
                  "-T", "fields", "-e", "tcp.seq")
    assert sorted(int(s) for s in retx.split()) == [1 + 30_000, 1 + 90_000, 1 + 150_000]


def test_sack_blocks_and_the_handshake_are_real_tcp_options(tmp_path):
    scenario("sack").run(pcap_dir=tmp_path)
    out = tshark(tmp_path / "path.pcap", "-Y", "tcp.options.sack_le", "-T", "fields", "-e", "tcp.options.sack_le")
    assert out.strip(), "some ACKs carry SACK blocks"
    syn = tshark(tmp_path / "access.pcap", "-Y", "tcp.flags.syn == 1", "-T", "fields", "-e", "tcp.options.mss_val")
    assert "1000" in syn.split()


def test_checksums_are_valid(tmp_path):
    scenario().run(pcap_dir=tmp_path)
    bad = tshark(tmp_path / "path.pcap", "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
                 "-Y", "tcp.checksum.status == 0 || ip.checksum.status == 0")
    assert bad.strip() == ""
