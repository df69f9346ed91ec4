"""charalambous1998's grid: Table 1's cells (variant x RTT x BER) with their replications,
and the test-length runs on the satellite path (Fig. R3), full and quick."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from renolab.experiments.charalambous1998.scenarios import VARIANTS


@dataclass(frozen=True)
class Grid:
    """What a reproduction runs: Table 1's *rtts* (ms) and *bers* with *reps* seeds per
    cell; the test *lengths* (s) at the satellite RTT, for *length_bers*, *length_reps*
    seeds each; *ber_names*: each BER as the paper writes it."""

    rtts: tuple[float, ...]
    bers: tuple[float, ...]
    reps: int
    lengths: tuple[float, ...]
    length_bers: tuple[float, ...]
    length_reps: int
    ber_names: dict[float, str]

    def ber_name(self, ber: float) -> str:
        """A BER as the paper writes it (``"1.1e-9"``)."""
        return self.ber_names.get(ber, f"{ber:g}")


def grid(paper: dict[str, Any], quick: bool) -> Grid:
    """The paper's RTTs and BERs; 3 seeds per cell (10 in full mode); test lengths of 30,
    180 and 600 s with 3 seeds (30 s to 20 min with 5) at the two middle BERs."""
    t1 = paper["table1"]
    bers = tuple(float(b) for b in t1["ber"])
    ber_names = {**dict(zip(paper["table2"]["ber"], paper["table2"]["ber_text"])), **dict(zip(t1["ber"], t1["ber_text"]))}
    return Grid(
        rtts=tuple(float(r) for r in t1["rtt_ms"]),
        bers=bers,
        reps=3 if quick else 10,
        lengths=(30.0, 180.0, 600.0) if quick else (30.0, 60.0, 120.0, 180.0, 300.0, 600.0, 1200.0),
        length_bers=(bers[1], bers[2]),
        length_reps=3 if quick else 5,
        ber_names=ber_names,
    )


def table1_runs(g: Grid) -> list[tuple[str, float, float, int]]:
    """(variant, RTT ms, BER, replication) of every Table 1 run."""
    return [(v, rtt, ber, rep) for v in VARIANTS for rtt in g.rtts for ber in g.bers for rep in range(g.reps)]


def length_runs(g: Grid) -> list[tuple[str, float, float, int]]:
    """(variant, BER, test length s, replication) of every test-length run (RTT 534 ms)."""
    return [(v, ber, length, rep) for v in ("reno", "sack") for ber in g.length_bers for length in g.lengths for rep in range(g.length_reps)]
