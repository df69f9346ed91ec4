"""The Python API: build a scenario in code, run it, read its tables and traces, draw figures.

Two flows (Reno and SACK) share a RED bottleneck; the script prints their results and the
bottleneck's, Jain's index and the delay percentiles, then writes three figures.

Run it:  python examples/python_api.py out/python_api
"""

import sys
from pathlib import Path

from renolab import Scenario

out = Path(sys.argv[1] if len(sys.argv) > 1 else "out/python_api")

# A dumbbell: the [[topology]] helper expands into s1, s2 -> r1 -> r2 -> d1, d2.
scenario = Scenario(
    simulation={"seed": 1, "duration": "15s"},
    topology=[{
        "kind": "dumbbell",
        "n": 2,
        "access": {"rate": "100Mbps", "delay": "1ms"},
        "bottleneck": {"rate": "10Mbps", "delay": "20ms",
                       "queue": {"kind": "red", "limit": 80, "min_th": 10, "max_th": 30}},
    }],
    flow=[
        {"name": "reno", "variant": "reno", "src": "s1", "dst": "d1"},
        {"name": "sack", "variant": "sack", "src": "s2", "dst": "d2", "start": "0.5s"},
    ],
)
print(scenario.validate()["link"][2]["queue"])  # every default made explicit

result = scenario.run(trace=["cwnd", "seq", "queue"])
print(result.flows[["flow", "goodput_bps", "retransmits", "timeouts", "latency_p50_s", "latency_p99_s", "jitter_s"]])
print(result.links.set_index("link").loc["bottleneck", ["utilisation", "queue_drops", "max_queue"]])
print(result.fairness())  # Jain's index over the flows sharing the bottleneck

cwnd = result.trace("cwnd")  # time_s, flow, cwnd, ssthresh (inf while unset), inflated_cwnd
print(cwnd.groupby("flow", observed=True)["cwnd"].max())

out.mkdir(parents=True, exist_ok=True)
result.save(out)  # flows.csv, links.csv, summary.json, cwnd/seq/queue.parquet
result.plot.cwnd(inflated=True).savefig(out / "cwnd.png")
result.plot.throughput().savefig(out / "throughput.png")
result.plot.queue().savefig(out / "queue.png")  # the bottleneck and RED's average
print(f"wrote {out}")
