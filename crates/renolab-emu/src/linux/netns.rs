//! Network namespaces: created with `ip netns add` (an argument vector, never a shell),
//! configured with `ip -n` and with sysctls written by a thread that has entered the
//! namespace, and removed when the [`Namespaces`] guard is dropped: at the end, on an error,
//! on Ctrl-C (the caller's cancel flag ends the run normally) and on a panic (unwinding
//! drops the guard).
//!
//! Namespaces left by a run that was killed are removed by the next one ([`remove_stale`]),
//! but only those it can prove were made by a process that is gone: `/run/netns` may be
//! shared by containers whose processes this one cannot see, so a pid absent from this
//! `/proc` proves nothing. Every namespace gets a marker ([`Owner`], in [`MARKER_DIR`]):
//! the boot, the PID namespace, the pid and the start time of the process that made it. A
//! namespace is stale when its marker names this boot and this PID namespace, and its pid
//! is free or now another process's (another start time). Without a marker it is left
//! alone.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::sys;
use crate::plan::{netns_owner, NETNS_PREFIX};

/// Where `ip netns` keeps its namespaces.
const NETNS_DIR: &str = "/run/netns";
/// Where the markers of renolab's namespaces are: one file per namespace, named as it.
const MARKER_DIR: &str = "/run/renolab-netns";

/// `ip` from iproute2, looked up in the system directories only (the emulator runs as
/// root: `PATH` is not trusted).
pub fn ip_path() -> io::Result<PathBuf> {
    ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                "iproute2's `ip` is not installed (apt-get install iproute2)",
            )
        })
}

/// Runs `ip ARGS...`; an error carries ip's own message.
pub fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new(ip_path()?).args(args).env_clear().output()?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    Err(io::Error::other(format!(
        "ip {}: {}",
        args.join(" "),
        stderr.trim()
    )))
}

/// Who made a namespace (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// `/proc/sys/kernel/random/boot_id`.
    pub boot_id: String,
    /// The PID namespace, as `/proc/self/ns/pid` names it (`pid:[4026531836]`).
    pub pid_ns: String,
    /// The process.
    pub pid: u32,
    /// Its start time, clock ticks after boot (`/proc/PID/stat`, field 22).
    pub start_ticks: u64,
}

impl Owner {
    /// This process.
    pub fn this_process() -> io::Result<Self> {
        let pid = std::process::id();
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")?
            .trim()
            .to_string();
        let pid_ns = std::fs::read_link("/proc/self/ns/pid")?
            .to_string_lossy()
            .into_owned();
        let start_ticks = start_ticks(pid)
            .ok_or_else(|| io::Error::other("cannot read this process's start time"))?;
        Ok(Owner {
            boot_id,
            pid_ns,
            pid,
            start_ticks,
        })
    }

    /// The marker's text: one `key=value` line per field.
    pub fn to_text(&self) -> String {
        format!(
            "boot_id={}\npid_ns={}\npid={}\nstart_ticks={}\n",
            self.boot_id, self.pid_ns, self.pid, self.start_ticks
        )
    }

    /// Reads a marker's text; `None` if any field is missing or malformed.
    pub fn parse(text: &str) -> Option<Self> {
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_string)
        };
        Some(Owner {
            boot_id: field("boot_id")?,
            pid_ns: field("pid_ns")?,
            pid: field("pid")?.parse().ok()?,
            start_ticks: field("start_ticks")?.parse().ok()?,
        })
    }

    /// True if this owner is provably gone, seen from `here` (this process): the same boot
    /// and PID namespace, and its pid free or another process's (`start_of` reads a pid's
    /// start time). This process's own markers count as gone: its emulations run one at a
    /// time, so an earlier one's namespace is a leftover.
    pub fn is_gone(&self, here: &Owner, start_of: impl Fn(u32) -> Option<u64>) -> bool {
        if self.boot_id != here.boot_id || self.pid_ns != here.pid_ns {
            return false;
        }
        self.pid == here.pid || start_of(self.pid) != Some(self.start_ticks)
    }
}

/// The start time of process `pid` in clock ticks after boot (`/proc/PID/stat`, field 22;
/// the fields are counted after the command name, which may hold spaces and parentheses).
pub fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Field 3 (state) is the first after the name: field 22 is the 20th from there.
    after_name.split_whitespace().nth(19)?.parse().ok()
}

fn marker_path(name: &str) -> PathBuf {
    Path::new(MARKER_DIR).join(name)
}

/// The marker directory, created (root only) if missing; refused if it is not a plain
/// directory (a symbolic link planted there would send markers elsewhere).
fn marker_dir() -> io::Result<&'static Path> {
    let dir = Path::new(MARKER_DIR);
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => Ok(dir),
        Ok(_) => Err(io::Error::other(format!(
            "{MARKER_DIR} is not a directory; remove it"
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            use std::os::unix::fs::DirBuilderExt;
            match std::fs::DirBuilder::new().mode(0o700).create(dir) {
                Ok(()) => Ok(dir),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => marker_dir(),
                Err(e) => Err(io::Error::new(e.kind(), format!("{MARKER_DIR}: {e}"))),
            }
        }
        Err(e) => Err(e),
    }
}

/// Removes the namespaces renolab made whose maker is provably gone ([`Owner::is_gone`]),
/// and their markers, and markers left without a namespace. Returns the names of the
/// namespaces removed.
pub fn remove_stale() -> io::Result<Vec<String>> {
    let here = Owner::this_process()?;
    let mut removed = Vec::new();
    let gone = |name: &str| {
        let text = std::fs::read_to_string(marker_path(name)).ok()?;
        let owner = Owner::parse(&text)?;
        owner.is_gone(&here, start_ticks).then_some(())
    };
    let names = |dir: &str| -> io::Result<Vec<String>> {
        match std::fs::read_dir(dir) {
            Ok(entries) => Ok(entries
                .flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| netns_owner(n).is_some())
                .collect()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    };
    for name in names(NETNS_DIR)? {
        if gone(&name).is_some() {
            ip(&["netns", "delete", &name])?;
            let _ = std::fs::remove_file(marker_path(&name));
            removed.push(name);
        }
    }
    for name in names(MARKER_DIR)? {
        if !Path::new(NETNS_DIR).join(&name).exists() && gone(&name).is_some() {
            let _ = std::fs::remove_file(marker_path(&name));
        }
    }
    Ok(removed)
}

/// The namespaces of one emulation; dropping the guard deletes them.
#[derive(Debug, Default)]
pub struct Namespaces {
    names: Vec<String>,
}

impl Namespaces {
    /// Creates namespace `name` (which must start with renolab's prefix) and returns an open
    /// handle on it.
    pub fn add(&mut self, name: &str) -> io::Result<File> {
        debug_assert!(name.starts_with(NETNS_PREFIX));
        // The marker first: a namespace never exists without the proof of who made it.
        let marker = marker_dir()?.join(name);
        std::fs::write(&marker, Owner::this_process()?.to_text())
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", marker.display())))?;
        if let Err(e) = ip(&["netns", "add", name]) {
            let _ = std::fs::remove_file(&marker);
            return Err(e);
        }
        self.names.push(name.to_string());
        File::open(Path::new(NETNS_DIR).join(name))
            .map_err(|e| io::Error::new(e.kind(), format!("{NETNS_DIR}/{name}: {e}")))
    }

    /// Deletes every namespace created (sockets and devices in them go with them).
    pub fn remove_all(&mut self) {
        for name in self.names.drain(..).rev() {
            // Nothing more can be done if this fails; the next run removes it as stale.
            if ip(&["netns", "delete", &name]).is_ok() {
                let _ = std::fs::remove_file(marker_path(&name));
            }
        }
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        self.remove_all();
    }
}

/// Runs `work` on a short-lived thread that has entered namespace `netns`: sockets and
/// devices it creates belong to that namespace, sysctls it reads or writes are that
/// namespace's.
pub fn within<R: Send>(netns: &File, work: impl FnOnce() -> io::Result<R> + Send) -> io::Result<R> {
    std::thread::scope(|s| {
        s.spawn(|| {
            sys::enter_netns(netns)?;
            work()
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("a set-up thread panicked")))
    })
}

/// Writes sysctl `key` (dotted, e.g. `net.ipv4.tcp_sack`) in the calling thread's namespace.
pub fn write_sysctl(key: &str, value: &str) -> io::Result<()> {
    std::fs::write(sysctl_path(key), value)
        .map_err(|e| io::Error::new(e.kind(), format!("sysctl {key}={value}: {e}")))
}

/// Reads sysctl `key` in the calling thread's namespace (`None` if the kernel has none).
pub fn read_sysctl(key: &str) -> Option<String> {
    std::fs::read_to_string(sysctl_path(key))
        .ok()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn sysctl_path(key: &str) -> PathBuf {
    debug_assert!(key
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_'));
    Path::new("/proc/sys").join(key.replace('.', "/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(pid: u32, start_ticks: u64) -> Owner {
        Owner {
            boot_id: "b".into(),
            pid_ns: "pid:[1]".into(),
            pid,
            start_ticks,
        }
    }

    #[test]
    fn a_marker_reads_back_as_written() {
        let o = owner(42, 1234);
        assert_eq!(Owner::parse(&o.to_text()), Some(o));
        assert_eq!(Owner::parse("boot_id=b\npid=1\n"), None);
    }

    #[test]
    fn only_a_maker_provably_gone_makes_a_namespace_stale() {
        let here = owner(10, 500);
        let alive = |pid: u32| (pid == 7).then_some(99);
        // Its pid is free, or another process's: gone.
        assert!(owner(8, 99).is_gone(&here, alive));
        assert!(owner(7, 98).is_gone(&here, alive));
        // Still running: kept.
        assert!(!owner(7, 99).is_gone(&here, alive));
        // Another boot's or another PID namespace's (a container beside this one): kept,
        // whatever this /proc says.
        assert!(!Owner {
            boot_id: "other".into(),
            ..owner(8, 99)
        }
        .is_gone(&here, alive));
        assert!(!Owner {
            pid_ns: "pid:[2]".into(),
            ..owner(8, 99)
        }
        .is_gone(&here, alive));
        // This process's own leftovers: gone.
        assert!(owner(10, 500).is_gone(&here, alive));
    }

    #[test]
    fn this_process_has_a_start_time() {
        let me = Owner::this_process().unwrap();
        assert_eq!(start_ticks(me.pid), Some(me.start_ticks));
        assert!(me.pid_ns.starts_with("pid:["), "{}", me.pid_ns);
    }
}
