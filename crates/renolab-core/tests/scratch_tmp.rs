use renolab_core::*;
#[test]
fn scratch() {
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("/tmp/case.json").unwrap()).unwrap();
    let s = Scenario::from_value(&doc).unwrap();
    let e = s.estimate();
    eprintln!("{e:?}");
    let out = run(&s, &trace::TraceRequest::default(), true).unwrap();
    eprintln!("{:?}", out.summary);
    eprintln!("{:?}", out.flows);
}
