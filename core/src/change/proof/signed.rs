//! A signed commit object taken apart as git takes it apart to check it: the signature is the
//! `gpgsig` header (its continuation lines without their leading space), and what was signed is
//! the object without that header — and without any other `gpgsig…` header (`gpgsig-sha256`,
//! the signature of the object's SHA-256 form), which git leaves out of the payload too. The
//! host checks the signature over the payload; whose key signed it is [`super::Signers`]'s.

/// A signature larger than this is not read (an Ed25519 SSH signature is about 300 bytes, an
/// RSA-8192 one under 2 KB): a commit that carries a huge header is refused, not parsed.
pub const MAX_SIGNATURE_BYTES: usize = 16 << 10;

/// A commit object, as a signature check sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignedCommit {
    /// No `gpgsig` header.
    Unsigned,
    /// The bytes git signs (and checks), and the armored signature.
    Signed { payload: Vec<u8>, armor: String },
    /// A signature that cannot be read: why.
    Unreadable(String),
}

/// `raw` (a commit object's bytes, as `git cat-file commit` gives them) taken apart.
pub fn signed_commit(raw: &[u8]) -> SignedCommit {
    let mut payload = Vec::with_capacity(raw.len());
    let mut signature: Vec<u8> = Vec::new();
    let mut headers = 0;
    // Which header the last header line belongs to: ours, another signature, or any other.
    #[derive(PartialEq)]
    enum In {
        Ours,
        Other,
        Rest,
    }
    let mut within = In::Rest;
    let mut at = 0;
    while at < raw.len() {
        let end = raw[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(raw.len(), |i| at + i + 1);
        let line = &raw[at..end];
        if line == b"\n" {
            // The headers end: the message follows, signed as it is.
            payload.extend_from_slice(&raw[at..]);
            break;
        }
        if line.starts_with(b" ") && within != In::Rest {
            if within == In::Ours {
                signature.extend_from_slice(&line[1..]);
            }
        } else if let Some(value) = line.strip_prefix(b"gpgsig ") {
            headers += 1;
            within = In::Ours;
            signature.extend_from_slice(value);
        } else if line.starts_with(b"gpgsig") {
            within = In::Other;
        } else {
            within = In::Rest;
            payload.extend_from_slice(line);
        }
        if signature.len() > MAX_SIGNATURE_BYTES {
            return SignedCommit::Unreadable(format!(
                "its signature is longer than {MAX_SIGNATURE_BYTES} bytes"
            ));
        }
        at = end;
    }
    match headers {
        0 => SignedCommit::Unsigned,
        1 => match String::from_utf8(signature) {
            Ok(armor) => SignedCommit::Signed { payload, armor },
            Err(_) => SignedCommit::Unreadable("its signature is not UTF-8 text".into()),
        },
        n => SignedCommit::Unreadable(format!("it has {n} gpgsig headers, not one")),
    }
}
