"""How the studies draw and name the TCP variants: one colour and one label per variant, the
same in every figure and table of the studies that compare them."""

from __future__ import annotations

#: One colour per TCP variant, the same in every figure of these studies.
VARIANT_COLOURS = {
    "tahoe": "#7f7f7f",
    "reno": "#d62728",
    "newreno": "#1f77b4",
    "sack": "#2ca02c",
    "vegas": "#9467bd",
    "cbr": "#ff7f0e",
}

#: How each variant is written in prose and legends.
VARIANT_LABELS = {
    "tahoe": "Tahoe",
    "reno": "Reno",
    "newreno": "NewReno",
    "sack": "SACK",
    "vegas": "Vegas",
    "cbr": "CBR/UDP",
}
