use super::*;

fn t(cmd: &str) -> Vec<String> {
    writes(cmd).targets
}

#[test]
fn smoke() {
    assert_eq!(t("echo hi > a.txt"), ["a.txt"]);
}

#[test]
#[ignore]
fn show() {
    let cmds = std::env::var("CMDS").unwrap_or_default();
    for c in cmds.split("\n---\n") {
        let w = writes(c);
        println!("{c:?}\n   targets {:?}\n   unanalysed {:?}", w.targets, w.unanalysed);
    }
}
