"""renolab.units: Python reads rates, durations and sizes with the core's parser."""

from __future__ import annotations

import math

import pytest

from renolab import ScenarioError, Scenario, units


@pytest.mark.parametrize(
    ("text", "bps"), [("10Mbps", 10_000_000), ("1.5 Mbps", 1_500_000), ("64Kbps", 64_000), ("64kbps", 64_000),
                      ("9600bps", 9600), ("10Gbps", 10_000_000_000), ("2 Mb/s", 2_000_000), ("50Mbit", 50_000_000),
                      ("1Gbit/s", 10**9), ("50MBps", 400_000_000), ("50MB/s", 400_000_000), ("1500Bps", 12_000),
                      ("2KBps", 16_000)]
)
def test_rates(text, bps):
    assert units.rate_bps(text) == bps
    assert units.parse_rate_bps(text) == float(bps)


@pytest.mark.parametrize(
    ("text", "ns"), [("48ms", 48_000_000), ("0.5s", 500_000_000), ("100us", 100_000), ("250ns", 250),
                     ("1.5min", 90_000_000_000), ("9ms", 9_000_000)]
)
def test_durations_are_exact_nanoseconds(text, ns):
    assert units.duration_ns(text) == ns
    assert units.parse_duration_s(text) == ns / 1e9


def test_sizes():
    assert units.size_bytes("8MiB") == 8 * 1024 * 1024
    assert units.size_bytes("10MB") == 10_000_000
    assert units.size_bytes("1500") == 1500


@pytest.mark.parametrize("text", ["50mbps", "50mb/s", "1GBPS", "2 kBPS"])
def test_a_spelling_that_is_bits_or_bytes_only_by_its_case_is_refused_with_both_meanings(text):
    with pytest.raises(ValueError, match=r"is ambiguous: .*bits/s.*bytes/s.*case-sensitive") as err:
        units.rate_bps(text)
    assert str(err.value).startswith(f'"{text}" is ambiguous')
    assert math.isnan(units.parse_rate_bps(text))


def test_strict_parsers_raise_the_core_message():
    with pytest.raises(ValueError, match=r'"10 Mbits" is not a rate; use e.g. "10Mbps" \(bits/s: '):
        units.rate_bps("10 Mbits")
    with pytest.raises(ValueError, match=r'"10mbit": units are case-sensitive; did you mean "Mbit" = megabits/s\?'):
        units.rate_bps("10mbit")
    with pytest.raises(ValueError, match="is not a duration"):
        units.duration_ns("5 parsecs")
    with pytest.raises(ValueError, match="is not a size"):
        units.size_bytes("3 bananas")


def test_lenient_parsers_pass_numbers_and_give_nan_for_text_that_is_not_a_quantity():
    assert units.parse_rate_bps(1e6) == 1e6 and units.parse_duration_s(2) == 2.0
    assert math.isnan(units.parse_rate_bps("fast")) and math.isnan(units.parse_duration_s("soon"))


def test_the_same_text_means_the_same_in_a_scenario(small_scenario):
    # The link table's rate_bps and delay_s come from this parser; the core's run uses its own
    # copy of the same code: an odd rate and delay read the same on both sides.
    small_scenario["link"][1].update(rate="1.25 Mbps", delay="12.5ms")
    result = Scenario.from_dict(small_scenario).run()
    row = result.links.set_index("link").loc["bottleneck"]
    assert (row["rate_bps"], row["delay_s"]) == (1_250_000.0, 0.0125)
    small_scenario["link"][1]["rate"] = "1.25 mbps"
    with pytest.raises(ScenarioError, match=r"link\[1\]\.rate: \"1.25 mbps\" is ambiguous"):
        Scenario.from_dict(small_scenario).validate()
    small_scenario["link"][1]["rate"] = "1.25 MBps"  # bytes: 10 Mb/s
    assert Scenario.from_dict(small_scenario).validate()["link"][1]["rate"] == "10Mbps"
