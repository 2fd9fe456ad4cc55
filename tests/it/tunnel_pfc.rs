//! PFC and 802.3x PAUSE inside ERSPAN II/III, GRE (0x6558) and VXLAN mirrors are analysed
//! like bare ones (issue 29): counted, named by the mirrored frame's own sender rather than
//! the tunnel's outer MAC, timed per priority, and a storm among them can fail the run. The
//! truth is `fixtures/tunnel_pfc/expected.json`, typed in by hand in
//! `fixtures/gen/make_tunnel_pfc.py`.

use serde_json::Value;

use crate::harness::{fixture, rdmadump, rdmadump_ok, read_json, stderr, stdout};

fn truth() -> Value {
    let text = std::fs::read_to_string(fixture("tunnel_pfc/expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn capture() -> String {
    fixture("tunnel_pfc/tunnel_pfc.pcap")
        .to_str()
        .unwrap()
        .to_string()
}

/// `analyze` with the truth's link speed and storm threshold, then `extra`.
fn analyze_args(want: &Value, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["analyze".to_string()];
    args.extend(
        want["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string()),
    );
    args.extend(extra.iter().map(|a| a.to_string()));
    args.push(capture());
    args
}

#[test]
fn analyze_counts_and_times_tunnelled_pauses_by_the_inner_sender() {
    let want = truth();
    let args = analyze_args(&want, &["--json"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let got: Value = serde_json::from_str(&stdout(&rdmadump_ok(&args))).unwrap();
    let (wp, gp) = (&want["pfc"], &got["pfc"]);
    let mut problems = Vec::new();
    let mut expect = |what: &str, want: &Value, got: &Value| {
        if want != got {
            problems.push(format!("{what}: expected {want}, got {got}"));
        }
    };

    // Every frame is PFC or PAUSE: none counted as "other" for being inside a tunnel.
    for (kind, n) in got["counts"].as_object().unwrap() {
        let n_want = want["kinds"].get(kind).cloned().unwrap_or(Value::from(0));
        expect(&format!("counts.{kind}"), &n_want, n);
    }
    expect("pfc.frames", &wp["frames"], &gp["frames"]);
    expect("pfc.pause_8023x", &wp["pause_8023x"], &gp["pause_8023x"]);
    expect(
        "pfc.link_speed_bps",
        &want["link_speed_bps"],
        &gp["link_speed_bps"],
    );
    expect(
        "pfc.storm_threshold_ns",
        &want["storm_threshold_ns"],
        &gp["storm_threshold_ns"],
    );

    // One row per inner sender and priority, in order of first appearance.
    let senders = gp["senders"].as_array().unwrap();
    let want_senders = wp["senders"].as_array().unwrap();
    expect(
        "number of sender rows",
        &want_senders.len().into(),
        &senders.len().into(),
    );
    for (i, (w, g)) in want_senders.iter().zip(senders).enumerate() {
        for key in [
            "src",
            "priority",
            "frames",
            "pause_frames",
            "xon_frames",
            "paused_ns",
        ] {
            expect(&format!("pfc.senders[{i}].{key}"), &w[key], &g[key]);
        }
    }

    // The storm, and nothing taken for a cascade.
    let storms = gp["storms"].as_array().unwrap();
    let want_storms = wp["storms"].as_array().unwrap();
    expect(
        "storm present",
        &wp["storm"],
        &Value::from(!storms.is_empty()),
    );
    expect(
        "pfc.storm_count",
        &want_storms.len().into(),
        &gp["storm_count"],
    );
    expect(
        "number of storms",
        &want_storms.len().into(),
        &storms.len().into(),
    );
    for (i, (w, g)) in want_storms.iter().zip(storms).enumerate() {
        expect(
            &format!("pfc.storms[{i}].kind"),
            &"pfc_storm".into(),
            &g["kind"],
        );
        for key in ["src", "priority", "start_frame", "frames", "duration_ns"] {
            expect(&format!("pfc.storms[{i}].{key}"), &w[key], &g[key]);
        }
    }
    expect("pfc.cascade_count", &wp["cascades"], &gp["cascade_count"]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn read_shows_the_pfc_layer_inside_each_tunnel() {
    let want = truth();
    let frames = read_json(&fixture("tunnel_pfc/tunnel_pfc.pcap"), &[]);
    let rows = want["per_frame"].as_array().unwrap();
    assert_eq!(frames.len(), rows.len());
    for (w, g) in rows.iter().zip(&frames) {
        let n = &w["frame"];
        assert_eq!(g["frame"], *n);
        assert_eq!(g["kind"], w["kind"], "frame {n}");
        assert_eq!(g["ts_ns"], w["ts_ns"], "frame {n}");
        let tunnels = g["tunnel"].as_array().unwrap();
        assert_eq!(tunnels.len(), 1, "frame {n}: {tunnels:?}");
        assert_eq!(tunnels[0]["type"], w["tunnel"], "frame {n}");
        // `eth` is the mirrored frame's; the tunnel's own MAC stays in the tunnel entry.
        assert_eq!(g["eth"]["src"], w["src_mac"], "frame {n}");
        assert_ne!(tunnels[0]["src_mac"], w["src_mac"], "frame {n}");
        if w["kind"] == "pfc" {
            assert_eq!(
                g["pfc"]["class_enable"], w["class_enable_vector"],
                "frame {n}"
            );
            assert_eq!(g["pfc"]["quanta"], w["quanta"], "frame {n}");
            assert!(g.get("pause").is_none(), "frame {n}");
        } else {
            assert_eq!(g["pause"]["quanta"], w["quanta"], "frame {n}");
            assert!(g.get("pfc").is_none(), "frame {n}");
        }
    }
}

#[test]
fn fail_on_pfc_storm_fires_on_a_tunnelled_storm() {
    let want = truth();
    assert_eq!(want["pfc"]["storm"], true);
    let args = analyze_args(&want, &["--fail-on", "pfc_storm"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = rdmadump(&args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // The control: under the default 100 ms threshold the 7.4 ms pause is no storm.
    let out = rdmadump(&["analyze", "--fail-on", "pfc_storm", &capture()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
