"""Type stubs of ``renolab._core``, the Rust engine (``crates/renolab-py``).

Checked against the built module by ``tests/python/test_core_stub.py``: the same names,
the same parameters.
"""

from typing import Any, Callable, Optional, TypedDict

__version__: str

#: Record layout of each trace: ``{trace: [(field, numpy dtype), ...]}``, in record order.
TRACE_FIELDS: dict[str, list[tuple[str, str]]]
#: Names of the codes of each coded trace column: ``{trace: {column: [name of code 0, ...]}}``.
TRACE_CODES: dict[str, dict[str, list[str]]]

class OptionInfo(TypedDict):
    """One option of a controller, as its declaration gives it."""

    name: str
    takes: str
    default: str
    doc: str
    source: str

class ControllerInfo(TypedDict):
    """A built-in controller, as its declaration (``crates/renolab-core/src/tcp/cc``) gives it."""

    name: str
    summary: str
    options: list[OptionInfo]
    trace: list[str]
    profiles: list[str]
    default_recovery: dict[str, str]

#: The built-in controllers, in the order the scenario's errors list them: what a scenario's
#: ``variant`` takes, from the same declarations the parser, the traces and the docs read.
CONTROLLERS: list[ControllerInfo]

class ScenarioError(ValueError):
    """A scenario that cannot run; the message names the field."""

class SimulationError(RuntimeError):
    """A run that failed inside the engine.

    Raised by :func:`run` with ``kind`` (``"panic"``, ``"invariant"``, ``"trace"`` or
    ``"controller"``), ``seed`` and ``scenario`` (the JSON text run); other raisers may
    leave them unset. A Python controller's failure also has ``user_traceback`` (or None).
    """

    kind: str
    seed: Optional[int]
    scenario: str
    user_traceback: Optional[str]

class EmulationError(RuntimeError):
    """An emulation that could not run here (``kind`` ``"unsupported"``) or failed
    (``kind`` ``"failed"``)."""

    kind: str

class TraceEntry(TypedDict, total=False):
    """One recorded trace: its layout and its packed records, in memory or in a file."""

    fields: list[tuple[str, str]]
    data: bytes
    path: str

class RunOutput(TypedDict):
    """What :func:`run` returns: per-flow and per-link columns, the run summary, the traces."""

    flows: dict[str, list[Any]]
    links: dict[str, list[Any]]
    summary: dict[str, Any]
    traces: dict[str, TraceEntry]

def validate(scenario_json: str) -> str:
    """Validate a scenario (JSON text) and return it normalised (JSON text), every default
    explicit; :class:`ScenarioError` naming the field otherwise."""

def trace_rate(path: str) -> float:
    """The mean rate (bit/s) of the mahimahi trace at *path* when MTU-sized packets fill
    its every delivery opportunity; :class:`ValueError` naming the file and line if it
    cannot be read."""

def expand_topology(doc_json: str) -> str:
    """Expand ``{"topology": [...]}`` (JSON text) into the ``[[link]]`` tables it stands
    for, returned as a JSON array."""

def run(
    scenario_json: str,
    traces: list[str] = ...,
    check_invariants: bool = False,
    trace_dir: Optional[str] = None,
    pcap_dir: Optional[str] = None,
    trace_memory_limit: Optional[int] = None,
    progress: Optional[Callable[[float, int], object]] = None,
    controllers: Optional[dict[int, tuple[type, list[str], list[str]]]] = None,
    memory_available: Optional[int] = None,
) -> RunOutput:
    """Run a scenario (JSON text), recording *traces*; the GIL is released meanwhile, taken
    back about every 50 ms to run signal handlers and call ``progress(sim_time_s, events)``.
    A trace that stops early (a full disk, a limit) does not fail the run:
    ``result["trace_failures"]`` says where (``truncated_at_s``) and why (``error``). Memory
    running short (past ``simulation.max_memory``, by default the smaller of 8 GiB and
    *memory_available*) stops the run: ``summary["stop_reason"] == "memory"``, the reason in
    ``summary["memory_error"]``.
    A ``KeyboardInterrupt`` stops the run: what it collected is returned, with
    ``summary["stop_reason"] == "interrupted"``. *controllers* gives Python controllers:
    ``{flow index: (class, hooks it overrides, attributes it traces)}`` (:mod:`renolab.cc`);
    the run then holds the GIL throughout. A controller that fails raises
    :class:`SimulationError` with ``kind`` ``"controller"``, ``user_traceback`` and the
    exception as its cause."""

def estimate_output_bytes(scenario_json: str, traces: list[str]) -> dict[str, int]:
    """Rough sizes in bytes of the named traces' records and of the pcap files (``"pcap"``)
    a run of the scenario would write; they err low."""

def available_memory() -> Optional[int]:
    """Memory this process may still allocate (bytes): the smallest of MemAvailable, the
    memory cgroup's headroom and the address-space limit's; None where unknown."""

def indent_json(compact: str, indent: int) -> str:
    """*compact* (``json.dumps(value, separators=(",", ":"))``) laid out as
    ``json.dumps(value, indent=indent)`` writes it, byte for byte."""

def shorten_message(message: str) -> str:
    """*message* with its long values cut (a quoted value to 40 characters, a word to 60,
    the whole to 2000), saying how long they were."""

def python_controllers(scenario_json: str) -> list[tuple[int, str, str]]:
    """The flows whose variant is a Python controller: ``(flow index, the variant as
    written, its arguments as a JSON object)``."""

#: The hooks a Python controller may override, in order.
CC_HOOKS: list[str]

def ca_increment(cwnd: float, /) -> float:
    """The built-in Reno's per-ACK congestion-avoidance step for a window of *cwnd*
    segments, exactly as its fixed point computes it."""

class Connection(object):
    """``conn``: the connection as a Python controller sees it."""

    cwnd: float
    ssthresh: float
    pacing_rate_bps: Optional[float]
    mss: int
    now_s: float
    now_ns: int
    flow: str
    profile: str

class Ack(object):
    """``ack``: what one ACK told the sender."""

    acked: int
    sacked: int
    ack: int
    in_flight: int
    ce: bool
    cwnd_limited: bool
    app_limited: bool
    rtt_s: Optional[float]
    min_rtt_s: Optional[float]
    srtt_s: Optional[float]
    delivery_rate_bps: Optional[float]

class CongestionEvent(object):
    """``event``: why the window must come down."""

    kind: str
    window: float

def parse_rate(text: str) -> int:
    """Bits per second of a rate such as ``"10Mbps"`` or ``"50MBps"`` (bytes, x8; case-sensitive);
    ``ValueError`` saying what is allowed, or both meanings of an ambiguous ``"50mbps"``."""

def parse_duration(text: str) -> int:
    """Nanoseconds of a duration such as ``"48ms"`` (rounded); ``ValueError`` otherwise."""

def parse_bytes(text: str) -> int:
    """Bytes of a size such as ``"8MiB"``; ``ValueError`` otherwise."""

def emulate(
    scenario_json: str,
    traces: list[str] = ...,
    trace_dir: Optional[str] = None,
    pcap_dir: Optional[str] = None,
    trace_memory_limit: Optional[int] = None,
    tcp_info_interval_us: int = 2000,
    spin_us: int = 20,
    cpu: Optional[int] = None,
    realtime: bool = True,
) -> RunOutput:
    """Run a scenario's TCP flows with the Linux kernel's TCP in network namespaces whose
    packets cross renolab's link models in real time (root; :mod:`renolab.emulate`)."""

def emulate_check(scenario_json: str) -> list[str]:
    """Check a scenario for emulation before anything is created (names, variants); returns
    notes on what the emulation changes; :class:`ScenarioError` otherwise."""

def emulate_normalise(scenario_json: str) -> str:
    """The scenario as the emulator reads it, normalised (JSON text)."""

def emulation_unsupported() -> Optional[str]:
    """Why emulation cannot run on this machine (not Linux, not root, no /dev/net/tun...),
    or None when it can."""

def kernel_congestion_controls() -> list[str]:
    """The congestion controls this kernel offers (``tcp_available_congestion_control``)."""
