//! The few system calls the emulator makes, each wrapped once with its error turned into a
//! message. Everything `unsafe` in the crate is in this file.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::Offloads;

/// Nanoseconds on `CLOCK_MONOTONIC` (a vDSO call: tens of nanoseconds).
#[inline]
pub fn clock_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleeps until `CLOCK_MONOTONIC` reads `ns` (at once if it already does). A signal's
/// interruption ends the sleep early; callers read the clock afterwards.
pub fn sleep_until(ns: u64) {
    let ts = libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: a valid timespec; the remaining-time pointer may be null with TIMER_ABSTIME.
    unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            libc::TIMER_ABSTIME,
            &ts,
            std::ptr::null_mut(),
        )
    };
}

fn check(ret: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if ret < 0 {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(ret)
    }
}

/// Moves the calling thread into the network namespace `netns` (an open
/// `/run/netns/<name>`). Only this thread moves; the process stays where it was.
pub fn enter_netns(netns: &File) -> io::Result<()> {
    // SAFETY: a valid file descriptor and a namespace type; setns has no memory arguments.
    check(
        unsafe { libc::setns(netns.as_raw_fd(), libc::CLONE_NEWNET) },
        "setns",
    )
    .map(drop)
}

/// Creates TUN device `name` (in the calling thread's namespace) and returns its file
/// descriptor, non-blocking: raw IPv4 datagrams, no packet-information header, no offloads
/// (without `TUNSETOFFLOAD` the kernel segments and checksums everything it hands over, so
/// no datagram exceeds the MTU).
pub fn open_tun(name: &str) -> io::Result<OwnedFd> {
    let path = CString::new("/dev/net/tun").expect("no NUL");
    // SAFETY: a NUL-terminated path; the returned descriptor is owned below.
    let fd = check(
        unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_CLOEXEC | libc::O_NONBLOCK,
            )
        },
        "open /dev/net/tun",
    )?;
    // SAFETY: `fd` was just opened and is owned by no one else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    #[repr(C)]
    struct IfReq {
        name: [u8; libc::IFNAMSIZ],
        flags: libc::c_short,
        _pad: [u8; 22],
    }
    let mut req = IfReq {
        name: [0; libc::IFNAMSIZ],
        flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
        _pad: [0; 22],
    };
    if name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("device name {name:?} is too long"),
        ));
    }
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: TUNSETIFF reads and writes one `struct ifreq` (40 bytes, which IfReq is).
    check(
        unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req as *mut IfReq) },
        "TUNSETIFF",
    )?;
    Ok(fd)
}

// The legacy ethtool commands (`include/uapi/linux/ethtool.h`): one `struct ethtool_value`.
const ETHTOOL_GTSO: u32 = 0x1e;
const ETHTOOL_STSO: u32 = 0x1f;
const ETHTOOL_GGSO: u32 = 0x23;
const ETHTOOL_SGSO: u32 = 0x24;
const ETHTOOL_GGRO: u32 = 0x2b;
const ETHTOOL_SGRO: u32 = 0x2c;

/// One `SIOCETHTOOL` request with a `struct ethtool_value` on device `name`, through the
/// control socket `sock`; returns the value the kernel wrote back.
fn ethtool_value(sock: &OwnedFd, name: &str, cmd: u32, data: u32) -> io::Result<u32> {
    #[repr(C)]
    struct EthtoolValue {
        cmd: u32,
        data: u32,
    }
    #[repr(C)]
    struct IfReqData {
        name: [u8; libc::IFNAMSIZ],
        data: *mut EthtoolValue,
        _pad: [u8; 16],
    }
    if name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("device name {name:?} is too long"),
        ));
    }
    let mut value = EthtoolValue { cmd, data };
    let mut req = IfReqData {
        name: [0; libc::IFNAMSIZ],
        data: &mut value,
        _pad: [0; 16],
    };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: SIOCETHTOOL reads one `struct ifreq` (40 bytes, which IfReqData is) whose
    // data pointer is a valid `struct ethtool_value` living across the call.
    check(
        unsafe {
            libc::ioctl(
                sock.as_raw_fd(),
                libc::SIOCETHTOOL,
                &mut req as *mut IfReqData,
            )
        },
        "SIOCETHTOOL",
    )?;
    Ok(value.data)
}

/// Switches TSO, GSO and GRO of device `name` (in the calling thread's namespace) on or
/// off (`ethtool -K <name> tso <on> gso <on> gro <on>`) and returns what the kernel then
/// reports: a feature the device cannot have stays off.
pub fn set_offloads(name: &str, on: bool) -> io::Result<Offloads> {
    // SAFETY: plain socket(2); the descriptor is owned below.
    let fd = check(
        unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) },
        "socket",
    )?;
    // SAFETY: just created, owned by no one else.
    let sock = unsafe { OwnedFd::from_raw_fd(fd) };
    let data = on as u32;
    // TSO cannot be switched on where the device lacks it (a TUN device without
    // TUNSETOFFLOAD): only switch it off.
    if !on {
        ethtool_value(&sock, name, ETHTOOL_STSO, 0)?;
    }
    ethtool_value(&sock, name, ETHTOOL_SGSO, data)?;
    ethtool_value(&sock, name, ETHTOOL_SGRO, data)?;
    Ok(Offloads {
        tso: ethtool_value(&sock, name, ETHTOOL_GTSO, 0)? != 0,
        gso: ethtool_value(&sock, name, ETHTOOL_GGSO, 0)? != 0,
        gro: ethtool_value(&sock, name, ETHTOOL_GGRO, 0)? != 0,
    })
}

/// Reads one datagram; `Ok(None)` when none is waiting.
#[inline]
pub fn read_packet(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: `buf` is valid for `buf.len()` writable bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n >= 0 {
        return Ok(Some(n as usize));
    }
    let e = io::Error::last_os_error();
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
        _ => Err(e),
    }
}

/// Writes bytes to a descriptor; returns how many were taken, 0 when it would block.
#[inline]
pub fn write_some(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` readable bytes.
    let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
    if n >= 0 {
        return Ok(n as usize);
    }
    let e = io::Error::last_os_error();
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
        _ => Err(e),
    }
}

/// Waits until one of `fds` is ready or `timeout_ns` passes (nanosecond timeout: `ppoll`).
/// Returns the number of ready descriptors.
pub fn wait(fds: &mut [libc::pollfd], timeout_ns: u64) -> io::Result<usize> {
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `fds` is a valid slice of pollfd; `ts` outlives the call; no signal mask.
    let n = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(0);
        }
        return Err(e);
    }
    Ok(n as usize)
}

/// Lets timers of this thread fire within 1 ns of their deadline (the default slack is
/// 50 us, which would be most of the emulator's lateness).
pub fn tight_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
}

/// Raises the calling thread's scheduling priority: real-time (`SCHED_FIFO`, priority
/// [`DRIVER_PRIORITY`])
/// when `realtime`, else the highest fair-share weight (nice -20). A fair-share thread
/// cannot starve the machine; a real-time one wakes up without waiting for another task's
/// slice to end (the kernel's real-time throttling still leaves 5 % to everything else).
pub fn raise_priority(realtime: bool) -> io::Result<()> {
    raise_priority_to(realtime, DRIVER_PRIORITY)
}

/// The driver's real-time priority: above the probe of the machine's timing (1).
pub const DRIVER_PRIORITY: i32 = 10;

/// As [`raise_priority`], at real-time priority `priority` (1-99) when `realtime`.
pub fn raise_priority_to(realtime: bool, priority: i32) -> io::Result<()> {
    if realtime {
        let param = libc::sched_param {
            sched_priority: priority,
        };
        // SAFETY: a valid sched_param for the calling thread (0).
        return check(
            unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) },
            "sched_setscheduler(SCHED_FIFO)",
        )
        .map(drop);
    }
    // SAFETY: gettid has no arguments; setpriority on one thread id.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) } as libc::id_t;
    check(
        unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, -20) },
        "setpriority",
    )
    .map(drop)
}

/// Pins the calling thread to CPU `cpu`.
pub fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET writes within it for cpu < CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "no such CPU"));
        }
        libc::CPU_SET(cpu, &mut set);
        check(
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set),
            "sched_setaffinity",
        )
        .map(drop)
    }
}

/// Drops every capability of the calling thread (capabilities are per thread on Linux): the
/// threads that move packets and data need none once the namespaces, devices and sockets
/// exist. The main thread keeps its own, to remove the namespaces at the end.
pub fn drop_thread_capabilities() -> io::Result<()> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    // _LINUX_CAPABILITY_VERSION_3: 64-bit sets as two 32-bit words.
    let mut header = Header {
        version: 0x2008_0522,
        pid: 0,
    };
    let data = [Data {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: capset reads one header and two data words, both valid for the call.
    let ret = unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()) };
    check(ret as libc::c_int, "capset").map(drop)
}

/// The calling process's effective capability set, from `/proc/self/status`.
pub fn effective_capabilities() -> io::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .ok_or_else(|| io::Error::other("no CapEff in /proc/self/status"))
}

/// A TCP socket, non-blocking, close-on-exec (in the calling thread's namespace).
pub fn tcp_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain socket(2); the descriptor is owned below.
    let fd = check(
        unsafe {
            libc::socket(
                libc::AF_INET,
                libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
            )
        },
        "socket",
    )?;
    // SAFETY: just created, owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn sockaddr(ip: [u8; 4], port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(ip),
        },
        sin_zero: [0; 8],
    }
}

/// Sets an integer socket option.
pub fn set_int(
    fd: &OwnedFd,
    level: libc::c_int,
    opt: libc::c_int,
    value: libc::c_int,
    what: &str,
) -> io::Result<()> {
    // SAFETY: the option value is one c_int, valid for the call.
    check(
        unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                level,
                opt,
                (&value as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        },
        what,
    )
    .map(drop)
}

/// Sets `TCP_CONGESTION` to `name`.
pub fn set_congestion(fd: &OwnedFd, name: &str) -> io::Result<()> {
    // SAFETY: the kernel reads at most `len` bytes of the name.
    check(
        unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_CONGESTION,
                name.as_ptr().cast(),
                name.len() as libc::socklen_t,
            )
        },
        "TCP_CONGESTION",
    )
    .map(drop)
}

/// Binds to `ip:port`.
pub fn bind(fd: &OwnedFd, ip: [u8; 4], port: u16) -> io::Result<()> {
    let addr = sockaddr(ip, port);
    // SAFETY: `addr` is a valid sockaddr_in for the call.
    check(
        unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        },
        "bind",
    )
    .map(drop)
}

/// Listens with a backlog of one connection.
pub fn listen(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: plain listen(2).
    check(unsafe { libc::listen(fd.as_raw_fd(), 1) }, "listen").map(drop)
}

/// Starts connecting to `ip:port` (non-blocking: completion shows as writability).
pub fn connect(fd: &OwnedFd, ip: [u8; 4], port: u16) -> io::Result<()> {
    let addr = sockaddr(ip, port);
    // SAFETY: `addr` is a valid sockaddr_in for the call.
    let ret = unsafe {
        libc::connect(
            fd.as_raw_fd(),
            (&addr as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if ret == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EINPROGRESS) {
        Ok(())
    } else {
        Err(io::Error::new(e.kind(), format!("connect: {e}")))
    }
}

/// Accepts a waiting connection, non-blocking; `Ok(None)` when none waits.
pub fn accept(fd: &OwnedFd) -> io::Result<Option<OwnedFd>> {
    // SAFETY: null address arguments are allowed; the descriptor is owned below.
    let ret = unsafe {
        libc::accept4(
            fd.as_raw_fd(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
        )
    };
    if ret >= 0 {
        // SAFETY: a new descriptor owned by no one else.
        return Ok(Some(unsafe { OwnedFd::from_raw_fd(ret) }));
    }
    let e = io::Error::last_os_error();
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
        _ => Err(e),
    }
}

/// The pending error of a socket (`SO_ERROR`), 0 if none.
pub fn socket_error(fd: &OwnedFd) -> io::Result<i32> {
    let mut value: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: value and len are valid and sized for one c_int.
    check(
        unsafe {
            libc::getsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_ERROR,
                (&mut value as *mut libc::c_int).cast(),
                &mut len,
            )
        },
        "SO_ERROR",
    )?;
    Ok(value)
}

/// Closes the sending half (the kernel sends a FIN once the data is out).
pub fn shutdown_write(fd: &OwnedFd) {
    // SAFETY: plain shutdown(2); failure (not connected) is harmless here.
    unsafe { libc::shutdown(fd.as_raw_fd(), libc::SHUT_WR) };
}

/// Reads `struct tcp_info` into `buf`; returns the length the kernel filled in.
pub fn tcp_info(fd: &OwnedFd, buf: &mut [u8]) -> io::Result<usize> {
    tcp_getsockopt(fd, libc::TCP_INFO, buf, "TCP_INFO")
}

/// Reads the congestion control's own state (`TCP_CC_INFO`: `struct tcp_bbr_info` for
/// BBR, nothing for reno and cubic) into `buf`; returns the length the kernel filled in.
pub fn tcp_cc_info(fd: &OwnedFd, buf: &mut [u8]) -> io::Result<usize> {
    tcp_getsockopt(fd, libc::TCP_CC_INFO, buf, "TCP_CC_INFO")
}

fn tcp_getsockopt(fd: &OwnedFd, opt: libc::c_int, buf: &mut [u8], what: &str) -> io::Result<usize> {
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `buf`.
    check(
        unsafe {
            libc::getsockopt(
                fd.as_raw_fd(),
                libc::IPPROTO_TCP,
                opt,
                buf.as_mut_ptr().cast(),
                &mut len,
            )
        },
        what,
    )?;
    Ok(len as usize)
}

/// The running kernel's release (`uname -r`).
pub fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".to_string())
}

/// Makes room for `needed` open files in this process (`RLIMIT_NOFILE`): raises the soft
/// limit up to the hard one if it is lower. Fails, saying what is needed, if the hard
/// limit is.
pub fn reserve_open_files(needed: u64) -> io::Result<()> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit.
    check(
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
        "getrlimit",
    )?;
    let needed_rlim = needed as libc::rlim_t;
    if limit.rlim_cur >= needed_rlim {
        return Ok(());
    }
    if limit.rlim_max < needed_rlim {
        return Err(io::Error::other(format!(
            "the emulation needs {needed} open files and this process may open {} (ulimit -Hn)",
            limit.rlim_max
        )));
    }
    limit.rlim_cur = needed_rlim;
    // SAFETY: `limit` is a valid rlimit, its soft limit below its hard one.
    check(
        unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) },
        "setrlimit",
    )
    .map(|_| ())
}
