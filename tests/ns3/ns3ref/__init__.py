"""ns-3.44 reference harness for renolab: run a renolab scenario file in ns-3 (see README.md).

- :mod:`ns3ref.spec` reads the scenario (no ns-3 needed);
- :mod:`ns3ref.sim` sets ns-3's TCP up Linux-like and runs the flows and their probes
  (``probes.cc``, compiled by cppyy);
- :mod:`ns3ref.wired` builds point-to-point links, :mod:`ns3ref.wifi` an 802.11b cell;
- :func:`ns3ref.run.run_scenario` does one run and writes its files.
"""
