//! Network namespaces: created with `ip netns add` (an argument vector, never a shell),
//! configured with `ip -n` and with sysctls written by a thread that has entered the
//! namespace, and removed when the [`Namespaces`] guard is dropped: at the end, on an error,
//! on Ctrl-C (the caller's cancel flag ends the run normally) and on a panic (unwinding
//! drops the guard). Namespaces left by a run that was killed are removed by the next one
//! ([`remove_stale`]): their names carry the pid of the process that made them.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::sys;
use crate::plan::{netns_owner, NETNS_PREFIX};

/// Where `ip netns` keeps its namespaces.
const NETNS_DIR: &str = "/run/netns";

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

/// Removes namespaces named by renolab whose process is gone (left by a killed run), and
/// any with this process's own pid (a dead run whose pid was reused by this one). Returns
/// the names removed.
pub fn remove_stale() -> io::Result<Vec<String>> {
    let own = std::process::id();
    let mut removed = Vec::new();
    let entries = match std::fs::read_dir(NETNS_DIR) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(removed),
        Err(e) => return Err(e),
    };
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let Some(pid) = netns_owner(&name) else {
            continue;
        };
        if pid == own || !sys::process_alive(pid) {
            ip(&["netns", "delete", &name])?;
            removed.push(name);
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
        ip(&["netns", "add", name])?;
        self.names.push(name.to_string());
        File::open(Path::new(NETNS_DIR).join(name))
            .map_err(|e| io::Error::new(e.kind(), format!("{NETNS_DIR}/{name}: {e}")))
    }

    /// Deletes every namespace created (sockets and devices in them go with them).
    pub fn remove_all(&mut self) {
        for name in self.names.drain(..).rev() {
            // Nothing more can be done if this fails; the next run removes it as stale.
            let _ = ip(&["netns", "delete", &name]);
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
