//! Rust-only benchmark of the reference dumbbell: `cargo run --release --example
//! bench_dumbbell -- [SCENARIO.toml] [REPEATS]`. Prints wall time, events per second and
//! data packets delivered in order per wall-clock second for each repeat.

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "benchmarks/reference_dumbbell.toml".to_string());
    let repeats: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("bench_dumbbell: cannot read {path}: {e}");
        std::process::exit(2)
    });
    let scenario = renolab_core::Scenario::from_toml_str(&text).unwrap_or_else(|e| {
        eprintln!("bench_dumbbell: {path}: {e}");
        std::process::exit(2)
    });
    println!(
        "{:>8} {:>12} {:>14} {:>16} {:>18}",
        "run", "wall_s", "events", "events_per_s", "delivered_per_s"
    );
    for i in 0..repeats {
        let t = Instant::now();
        let out = renolab_core::run(
            &scenario,
            &renolab_core::trace::TraceRequest::default(),
            false,
        )
        .expect("run");
        let wall = t.elapsed().as_secs_f64();
        let s = &out.summary;
        println!(
            "{:>8} {:>12.3} {:>14} {:>16.0} {:>18.0}",
            i + 1,
            wall,
            s.events,
            s.events as f64 / wall,
            s.packets_delivered as f64 / wall
        );
    }
}
