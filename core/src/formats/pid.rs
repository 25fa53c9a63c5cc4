//! A claim's `pid` field: the owner process, `PID@HOST` or `PID@HOST/START`, as claims.md lines
//! and claim files record it. Hosts write it when they claim and key the processes they observe
//! by it; [`crate::model::input::Facts::owner_alive`] reads it to tell a live owner from a
//! dead one, or from a later process given the same pid.

/// A claim's owner process as its `pid` field records it: `PID@HOST`, or `PID@HOST/START` with
/// the process's start time as the OS counts it (what a lock record keeps as `proc_start`:
/// Linux clock ticks since boot, macOS microseconds since the epoch, Windows its creation
/// time). The start time tells the owner from a later process given the same pid (issue 28,
/// finding 7); a field without one (written before Rail recorded it) still reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnerProcess<'a> {
    pub pid: u32,
    pub host: &'a str,
    pub start: Option<u64>,
}

impl<'a> OwnerProcess<'a> {
    /// Reads a `pid` field; `None` if it is not `PID@HOST[/START]`.
    pub fn parse(text: &'a str) -> Option<OwnerProcess<'a>> {
        let (pid, rest) = text.split_once('@')?;
        let pid = pid.parse().ok()?;
        let (host, start) = match rest.rsplit_once('/') {
            Some((host, start))
                if !start.is_empty() && start.bytes().all(|b| b.is_ascii_digit()) =>
            {
                (host, Some(start.parse().ok()?))
            }
            _ => (rest, None),
        };
        if host.is_empty() {
            return None;
        }
        Some(OwnerProcess { pid, host, start })
    }

    /// `PID@HOST`: the process, whatever its start time (how hosts key what they observed).
    pub fn key(&self) -> String {
        format!("{}@{}", self.pid, self.host)
    }

    /// The field as Rail writes it.
    pub fn render(&self) -> String {
        match self.start {
            Some(start) => format!("{}@{}/{start}", self.pid, self.host),
            None => self.key(),
        }
    }
}

/// Could a process have this pid (a lock owner, a claim's `pid`)? Not 0 (no OS gives it to a program: the Unix kernel's
/// own, Windows' idle process), nor above `i32::MAX` (Unix's `pid_t` is a signed 32-bit int;
/// Windows ids are multiples of 4 far below it in practice). Other values may be real.
pub fn plausible_pid(pid: u32) -> bool {
    pid != 0 && i32::try_from(pid).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_fields_with_and_without_a_start_time() {
        let o = OwnerProcess::parse("4242@devbox/123456").unwrap();
        assert_eq!((o.pid, o.host, o.start), (4242, "devbox", Some(123456)));
        assert_eq!(o.key(), "4242@devbox");
        assert_eq!(o.render(), "4242@devbox/123456");
        // Written before start times were recorded: still an owner.
        let old = OwnerProcess::parse("4242@build.example.org").unwrap();
        assert_eq!((old.host, old.start), ("build.example.org", None));
        assert_eq!(old.render(), "4242@build.example.org");
        // A host with a `/` that is not a start time stays the host.
        assert_eq!(OwnerProcess::parse("1@a/b").unwrap().host, "a/b");
        for bad in ["4242", "x@devbox", "4242@", "4242@/12", "@devbox"] {
            assert_eq!(OwnerProcess::parse(bad), None, "{bad}");
        }
    }
}
