"""Print the lee2001 grid comparison with ns-2.35 as a Markdown table, worst points first.

    python tests/ns2/report_lee2001.py > /tmp/table.md
"""

from __future__ import annotations

import csv
from pathlib import Path

from renolab.experiments import lee2001

rows = list(csv.DictReader((Path(__file__).parent / "lee2001_reference.csv").open()))
table = []
for r in rows:
    ours = lee2001.scenario(int(r["capacity_mbps"]), int(r["buffer_pkts"]), r["variant"], hoe=r["hoe"] == "1").run()
    f = ours.flows.iloc[0]
    t_ns2 = float(r["completion_s"])
    rel = (f.completion_time_s - t_ns2) / t_ns2
    name = r["variant"] + (" (Hoe)" if r["variant"] == "newreno" and r["hoe"] == "1" else "")
    table.append((abs(rel), name, r, f, rel))
table.sort(key=lambda x: -x[0])
print("| variant | C (Mb/s) | B | t_c ns-2 (s) | t_c renolab (s) | diff | retx ns-2 / renolab | timeouts ns-2 / renolab | drops ns-2 / renolab |")
print("|---|---|---|---|---|---|---|---|---|")
for _, name, r, f, rel in table:
    print(
        f"| {name} | {r['capacity_mbps']} | {r['buffer_pkts']} | {float(r['completion_s']):.3f} | {f.completion_time_s:.3f} "
        f"| {rel:+.2%} | {r['retransmits']} / {f.retransmits} | {r['timeouts']} / {f.timeouts} | {r['drops']} / {f.data_drops} |"
    )
within = sum(x[0] <= 0.02 for x in table)
print(f"\n{within} of {len(table)} points within 2 %; worst {table[0][4]:+.2%}.")
