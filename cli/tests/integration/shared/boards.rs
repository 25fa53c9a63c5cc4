//! Every board says how far a shared rail is verified and whose machine each claim is (issue
//! 42: "a team that has not set up keys keeps working, with a clear warning on every board that
//! the shared rail is unverified"): the text board, `--json`, `--html` (whose page builds the
//! board from the facts it embeds) and `rail flight --json` (what the VS Code extension's board
//! is given), all with core's words.

use super::*;

/// The JSON the `--html` page embeds (`{"texts": …, "facts": …}`).
fn embedded(html: &str) -> serde_json::Value {
    let start = html
        .find("{\"texts\":")
        .unwrap_or_else(|| panic!("no embedded rail in the page"));
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

#[test]
fn an_unverified_rail_and_each_claims_machine_are_on_every_board() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    let out = a.rail(&["claim", "auth", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = b.rail(&["claim", "ui", "--session", "bob"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (ida, idb) = (machine_id(a), machine_id(b));
    let warning = "the shared rail on origin is UNVERIFIED: no .rail/allowed-signers is \
                   committed on origin's main branch, so anyone who can push to origin can \
                   rewrite it unnoticed";

    // The text board: the warning under its title, each claim's machine against this one.
    let out = a.rail(&["board"], &[("NO_COLOR", "1")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let second = text.lines().nth(1).unwrap_or_default();
    assert!(second.starts_with(&format!("warning: {warning}")), "{text}");
    assert!(
        text.contains(&format!("machine: {ida} (this machine)")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "machine: {idb} (another machine's: only it changes this claim)"
        )),
        "{text}"
    );
    // Said once: the board carries it, so the read's note on stderr does not repeat it.
    assert!(!stderr(&out).contains("UNVERIFIED"), "{}", stderr(&out));

    // The JSON board: the same, as data.
    let out = a.rail(&["board", "--json"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let board: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shared = &board["shared"];
    assert_eq!(shared["remote"], "origin");
    assert_eq!(shared["verified"], "unverified");
    assert_eq!(shared["warning"], true);
    assert!(
        shared["text"].as_str().unwrap().starts_with(warning),
        "{shared}"
    );
    assert_eq!(shared["machine"], ida.as_str());
    let claim = |task: &str| {
        board["claims"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["task"] == task)
            .cloned()
            .unwrap_or_else(|| panic!("no {task} on {board}"))
    };
    let (auth, ui) = (claim("auth"), claim("ui"));
    assert_eq!(auth["machine"], ida.as_str());
    assert_eq!(auth["machine_text"], format!("{ida} (this machine)"));
    assert!(auth.get("elsewhere").is_none(), "{auth}");
    assert_eq!(ui["machine"], idb.as_str());
    assert_eq!(ui["elsewhere"], true);
    assert_eq!(
        ui["machine_text"],
        format!("{idb} (another machine's: only it changes this claim)")
    );

    // The HTML board embeds the facts its page builds the board from: this machine, and the
    // shared rail as this machine knows it (the page's rendering: web-viewer/test/cli-html).
    let out = a.rail(&["board", "--html", "board.html"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = std::fs::read_to_string(a.path().join("board.html")).unwrap();
    let facts = &embedded(&page)["facts"];
    assert_eq!(facts["machine"], ida.as_str());
    assert_eq!(facts["shared"]["remote"], "origin");
    assert_eq!(facts["shared"]["known"], true);
    assert!(facts["shared"]["signers"].is_null(), "{facts}");

    // `rail flight --json`, which the VS Code extension runs each refresh, gives it the same.
    let out = b.rail(&["flight", "--json"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let flight: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(flight["machine"], idb.as_str());
    assert_eq!(flight["shared"]["known"], true);
    assert!(flight["shared"]["signers"].is_null(), "{flight}");

    // Any other read still says it on stderr.
    let out = b.rail(&["who", "src"], &[]);
    assert!(stderr(&out).contains(warning), "{}", stderr(&out));
}
