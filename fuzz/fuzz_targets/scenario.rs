//! The scenario parser, fed arbitrary text as TOML and as JSON: it must return a scenario or
//! an error, never panic; an accepted scenario must survive a round trip through its
//! normalised JSON unchanged, and a small one must run with every invariant audited.
#![no_main]

use libfuzzer_sys::fuzz_target;
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// Scenarios estimated below this many events and packets alive are also run.
const RUN_EVENTS: u64 = 20_000;
const RUN_PACKETS: u64 = 2_000;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for parsed in [Scenario::from_toml_str(text), Scenario::from_json_str(text)] {
        let Ok(s) = parsed else { continue };
        let json = s.to_json();
        let again = Scenario::from_value(&json)
            .unwrap_or_else(|e| panic!("normalised scenario refused: {e}\n{json:#}"));
        assert_eq!(again, s, "round trip changed the scenario");
        let est = s.estimate();
        if est.events < RUN_EVENTS && est.peak_packets < RUN_PACKETS {
            let mut small = s.clone();
            // A flow that never finishes must not make the fuzzer wait on timers.
            small.max_events = small.max_events.min(20 * RUN_EVENTS);
            match renolab_core::run(&small, &TraceRequest::default(), true) {
                Ok(_) | Err(renolab_core::RunError::Limit(_)) => {}
                Err(e) => panic!("{e}\n{json:#}"),
            }
        }
    }
});
