//! The plan's checks: names, hosts, per-host settings, routes.

use super::*;
use serde_json::json;

fn dumbbell(src: &str, flow: &str, variant: &str) -> Value {
    json!({
        "simulation": {"duration": "2s"},
        "link": [
            {"from": src, "to": "r", "rate": "10Mbps", "delay": "5ms"},
            {"from": "r", "to": "dst", "rate": "10Mbps", "delay": "5ms"}
        ],
        "flow": [{"name": flow, "src": src, "dst": "dst", "variant": variant}]
    })
}

#[test]
fn hostile_names_are_refused_before_anything_is_created() {
    let long = "a".repeat(300);
    for bad in [
        "; rm -rf /",
        "../x",
        long.as_str(),
        "nœud",
        "-x",
        "a/b",
        "a.b",
        "$(id)",
    ] {
        let e = plan(&dumbbell(bad, "f", "reno"), 1).unwrap_err();
        assert!(
            e.0.contains("cannot be used by renolab emulate") || e.0.contains("not a valid name"),
            "{bad:?}: {e}"
        );
        let e = plan(&dumbbell("s", bad, "reno"), 1).unwrap_err();
        assert!(e.0.starts_with("flow[0].name:"), "{bad:?}: {e}");
    }
    let e = plan(&dumbbell("../x", "f", "reno"), 1).unwrap_err();
    assert!(e.0.starts_with("link[0].from: \"../x\""), "{e}");
    assert!(safe_name(&"a".repeat(MAX_NAME)).is_ok());
    assert!(safe_name(&"a".repeat(MAX_NAME + 1)).is_err());
}

#[test]
fn a_scenario_with_a_medium_is_refused_naming_it() {
    let mut doc = dumbbell("s", "f", "cubic");
    doc["medium"] = serde_json::json!([{"name": "w", "kind": "wifi", "nodes": ["s", "x"]}]);
    let e = plan(&doc, 7).unwrap_err().to_string();
    assert!(
        e.starts_with("medium: renolab emulate carries packets over links only"),
        "{e}"
    );
}

#[test]
fn names_get_the_prefix_and_the_interface_limit() {
    assert_eq!(netns_name(42, "sender"), "renolab-42-sender");
    assert_eq!(device_name("sender"), "rl-sender");
    assert_eq!(device_name("a_very_long_node_name"), "rl-a_very_long_");
    assert_eq!(device_name("a_very_long_node_name").len(), IFNAME_MAX);
    assert_eq!(netns_owner("renolab-42-sender"), Some(42));
    assert_eq!(netns_owner("renolab-42-../x"), None);
    assert_eq!(netns_owner("renolab--x"), None);
    assert_eq!(netns_owner("other-42-x"), None);
}

#[test]
fn only_tcp_endpoints_become_hosts() {
    let p = plan(&dumbbell("s", "f", "cubic"), 7).unwrap();
    let names: Vec<&str> = p.hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["s", "dst"]);
    assert_eq!(p.hosts[0].netns, "renolab-7-s");
    assert_eq!(p.hosts[1].ip, node_ip(2));
    assert_eq!(p.mtu, 1500);
    let FlowRole::Tcp(t) = &p.flows[0].role else {
        panic!("tcp flow")
    };
    assert_eq!((t.congestion.as_str(), t.sack), ("cubic", true));
    assert_eq!((t.src_host, t.dst_host, t.mss), (0, 1, 1460));
    assert_eq!(t.window_bytes, None, "rfc profile: unbounded window");
    assert_eq!(p.normalised()["flow"][0]["variant"], "cubic");
}

#[test]
fn variants_map_to_kernel_congestion_controls() {
    assert_eq!(kernel_variant("newreno"), Ok(("reno".into(), false)));
    assert_eq!(kernel_variant("sack"), Ok(("reno".into(), true)));
    assert_eq!(kernel_variant("bbr"), Ok(("bbr".into(), true)));
    assert!(kernel_variant("tahoe").is_err());
    assert!(kernel_variant("Cubic; ls").is_err());
    let e = plan(&dumbbell("s", "f", "x y"), 1).unwrap_err();
    assert!(e.0.starts_with("flow[0].variant:"), "{e}");
}

#[test]
fn flows_from_one_host_must_agree_on_sack() {
    let mut doc = dumbbell("s", "f", "newreno");
    doc["flow"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "g", "src": "s", "dst": "dst", "variant": "cubic"}));
    let e = plan(&doc, 1).unwrap_err();
    assert!(e.0.contains("needs SACK on"), "{e}");
}

#[test]
fn a_flow_without_gso_turns_the_offloads_of_both_its_hosts_off() {
    let mut doc = dumbbell("s", "f", "cubic");
    doc["simulation"]["profile"] = json!("linux");
    let p = plan(&doc, 1).unwrap();
    assert!(p.hosts.iter().all(|h| h.gso), "the kernel's default");
    doc["flow"][0]["options"] = json!({"gso": false});
    let p = plan(&doc, 1).unwrap();
    assert!(p.hosts.iter().all(|h| !h.gso));
    // A second flow through the same receiving host asks for GSO on: refused.
    doc["link"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": "s2", "to": "r", "rate": "10Mbps", "delay": "5ms"}));
    doc["flow"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "g", "src": "s2", "dst": "dst", "variant": "cubic"}));
    let e = plan(&doc, 1).unwrap_err();
    assert!(
        e.0.contains("flow[1].options.gso: is true but flow \"f\""),
        "{e}"
    );
}

#[test]
fn explicit_options_reach_the_route_and_windows_the_socket() {
    let mut doc = dumbbell("s", "f", "reno");
    doc["flow"][0]["options"] = json!({"initial_window": 4, "min_rto": "1s", "window": 20});
    doc["flow"][0]["mss"] = json!(9140);
    let p = plan(&doc, 1).unwrap();
    let FlowRole::Tcp(t) = &p.flows[0].role else {
        panic!("tcp flow")
    };
    assert_eq!(t.initial_window, Some(4));
    assert_eq!(t.min_rto, Some(SimDuration::from_secs(1)));
    assert_eq!(t.window_bytes, Some(20 * 9140));
    assert_eq!(p.mtu, 9180);
}

#[test]
fn the_kernel_is_given_the_mss_its_timestamps_leave_the_scenarios_payload() {
    let mut doc = dumbbell("s", "f", "cubic");
    doc["simulation"]["profile"] = json!("linux");
    let p = plan(&doc, 1).unwrap();
    let FlowRole::Tcp(t) = &p.flows[0].role else {
        panic!("tcp flow")
    };
    // The linux profile: 1448 bytes of payload in 52 bytes of headers (timestamps on);
    // the kernel takes the 12 option bytes off TCP_MAXSEG.
    assert_eq!(t.mss, 1460);
    assert_eq!(p.mtu, 1500);
}

#[test]
fn unknown_profiles_are_read_as_rfc_with_a_note() {
    let mut doc = dumbbell("s", "f", "cubic");
    doc["simulation"]["profile"] = json!("freebsd");
    let p = plan(&doc, 1).unwrap();
    assert!(
        p.notes.iter().any(|n| n.contains("\"freebsd\"")),
        "{:?}",
        p.notes
    );
}
