//! The objects a Python controller is called with, `conn`, `ack` and `event`, and
//! `ca_increment`: built on the C API directly, for speed.
//!
//! Each object is a plain C struct after the Python object header, its fields exposed by
//! member descriptors (`PyMemberDef`), so that no Rust code runs when the controller reads
//! or sets one, and the engine reads and writes them with loads and stores. (A `#[pyclass]`
//! getter goes through PyO3's trampoline; the controller reads these on every ACK.)
//!
//! What the controller reads on most calls (`conn.cwnd`, `conn.ssthresh`, `ack.acked`,
//! `ack.sacked`, the flags and the RTTs) is held as Python objects (`T_OBJECT_EX`
//! members): CPython then specialises the attribute access as it does for `__slots__`
//! (`LOAD_ATTR_SLOT`, `STORE_ATTR_SLOT`), a few instructions, and reading makes no new
//! object. The engine replaces such an object only when its value changed, and sees that
//! the controller set one by its identity (it keeps a reference to the object it last saw,
//! so that the address cannot be reused by another). What is read rarely (the time, the
//! cumulative ACK, the flight size) is a C number, converted only when read.
//! `ca_increment` is a `METH_O` function for the same reason: no argument tuple.
//!
//! Python never creates these objects (the types have no constructor); the binding makes
//! one of each per flow and refills them before every call, holding the GIL.

use std::ffi::{c_int, c_uint, c_void, CStr};
use std::mem::{offset_of, size_of};
use std::ptr;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyType};

use renolab_core::tcp::cc::{AckSample, Congestion};
use renolab_core::tcp::Window;
use renolab_core::time::SimDuration;

/// `conn`'s fields.
#[repr(C)]
struct ConnFields {
    ob_base: ffi::PyObject,
    /// A number (a float as the engine writes it).
    cwnd: *mut ffi::PyObject,
    ssthresh: *mut ffi::PyObject,
    /// None, or the rate the controller asks for.
    pacing_rate_bps: *mut ffi::PyObject,
    now_s: f64,
    now_ns: u64,
    mss: c_uint,
    flow: *mut ffi::PyObject,
    profile: *mut ffi::PyObject,
}

/// `ack`'s fields.
#[repr(C)]
struct AckFields {
    ob_base: ffi::PyObject,
    acked: *mut ffi::PyObject,
    sacked: *mut ffi::PyObject,
    ce: *mut ffi::PyObject,
    cwnd_limited: *mut ffi::PyObject,
    app_limited: *mut ffi::PyObject,
    rtt_s: *mut ffi::PyObject,
    min_rtt_s: *mut ffi::PyObject,
    srtt_s: *mut ffi::PyObject,
    delivery_rate_bps: *mut ffi::PyObject,
    ack: c_uint,
    in_flight: c_uint,
}

/// `event`'s fields.
#[repr(C)]
struct EventFields {
    ob_base: ffi::PyObject,
    kind: *mut ffi::PyObject,
    window: f64,
}

const CONN_OBJECTS: &[usize] = &[
    offset_of!(ConnFields, cwnd),
    offset_of!(ConnFields, ssthresh),
    offset_of!(ConnFields, pacing_rate_bps),
    offset_of!(ConnFields, flow),
    offset_of!(ConnFields, profile),
];
const ACK_OBJECTS: &[usize] = &[
    offset_of!(AckFields, acked),
    offset_of!(AckFields, sacked),
    offset_of!(AckFields, ce),
    offset_of!(AckFields, cwnd_limited),
    offset_of!(AckFields, app_limited),
    offset_of!(AckFields, rtt_s),
    offset_of!(AckFields, min_rtt_s),
    offset_of!(AckFields, srtt_s),
    offset_of!(AckFields, delivery_rate_bps),
];
const EVENT_OBJECTS: &[usize] = &[offset_of!(EventFields, kind)];

/// A member descriptor: `name`, C type `kind`, at `offset`, read-only unless `writable`.
fn member(
    name: &'static CStr,
    kind: c_int,
    offset: usize,
    writable: bool,
    doc: &'static CStr,
) -> ffi::PyMemberDef {
    ffi::PyMemberDef {
        name: name.as_ptr(),
        type_code: kind,
        offset: offset as ffi::Py_ssize_t,
        flags: if writable { 0 } else { ffi::Py_READONLY },
        doc: doc.as_ptr(),
    }
}

/// Releases the object fields at `offsets` of `obj`, then the object and its reference to
/// its (heap) type.
unsafe fn free_object(obj: *mut ffi::PyObject, offsets: &[usize]) {
    for &offset in offsets {
        let slot = (obj as *mut u8).add(offset) as *mut *mut ffi::PyObject;
        let value = ptr::replace(slot, ptr::null_mut());
        ffi::Py_XDECREF(value);
    }
    let tp = ffi::Py_TYPE(obj);
    ffi::PyObject_Free(obj as *mut c_void);
    ffi::Py_DECREF(tp as *mut ffi::PyObject);
}

unsafe extern "C" fn conn_dealloc(obj: *mut ffi::PyObject) {
    free_object(obj, CONN_OBJECTS)
}
unsafe extern "C" fn ack_dealloc(obj: *mut ffi::PyObject) {
    free_object(obj, ACK_OBJECTS)
}
unsafe extern "C" fn event_dealloc(obj: *mut ffi::PyObject) {
    free_object(obj, EVENT_OBJECTS)
}

/// A heap type named `name` whose instances are `basicsize` bytes with `members`.
fn make_type(
    py: Python<'_>,
    name: &'static CStr,
    doc: &'static CStr,
    basicsize: usize,
    mut members: Vec<ffi::PyMemberDef>,
    dealloc: unsafe extern "C" fn(*mut ffi::PyObject),
) -> PyResult<Py<PyType>> {
    // SAFETY: a zeroed member is the list's sentinel.
    members.push(unsafe { std::mem::zeroed() });
    // The type keeps pointers into these for the life of the process: made once per
    // process (PyOnceLock), they are leaked on purpose.
    let members = Box::leak(members.into_boxed_slice());
    let slots = Box::leak(Box::new([
        ffi::PyType_Slot {
            slot: ffi::Py_tp_members,
            pfunc: members.as_mut_ptr() as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_dealloc,
            pfunc: dealloc as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_doc,
            pfunc: doc.as_ptr() as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: 0,
            pfunc: ptr::null_mut(),
        },
    ]));
    let spec = Box::leak(Box::new(ffi::PyType_Spec {
        name: name.as_ptr(),
        basicsize: basicsize as c_int,
        itemsize: 0,
        flags: ffi::Py_TPFLAGS_DEFAULT as c_uint,
        slots: slots.as_mut_ptr(),
    }));
    // SAFETY: the spec and everything it points to live for the rest of the process.
    unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyType_FromSpec(spec))?
            .cast_into::<PyType>()
            .map(Bound::unbind)
            .map_err(Into::into)
    }
}

static CONN_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ACK_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static EVENT_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn conn_type(py: Python<'_>) -> PyResult<&Py<PyType>> {
    use ffi::{
        Py_T_DOUBLE as DOUBLE, Py_T_OBJECT_EX as OBJECT, Py_T_UINT as UINT,
        Py_T_ULONGLONG as ULONGLONG,
    };
    CONN_TYPE.get_or_try_init(py, || {
        make_type(
            py,
            c"renolab._core.Connection",
            c"The connection as a Python controller sees it (`conn`): read the window and set it.",
            size_of::<ConnFields>(),
            vec![
                member(c"cwnd", OBJECT, offset_of!(ConnFields, cwnd), true, c"Congestion window, segments (fractions allowed); set it to change the window."),
                member(c"ssthresh", OBJECT, offset_of!(ConnFields, ssthresh), true, c"Slow-start threshold, segments."),
                member(c"pacing_rate_bps", OBJECT, offset_of!(ConnFields, pacing_rate_bps), true, c"The rate to pace at, bits per second on the wire, or None (the sender's default); used when the flow paces (options.pacing = true)."),
                member(c"mss", UINT, offset_of!(ConnFields, mss), false, c"Payload bytes per segment."),
                member(c"now_s", DOUBLE, offset_of!(ConnFields, now_s), false, c"Simulated time of the call, seconds."),
                member(c"now_ns", ULONGLONG, offset_of!(ConnFields, now_ns), false, c"Simulated time of the call, nanoseconds (exact)."),
                member(c"flow", OBJECT, offset_of!(ConnFields, flow), false, c"The flow's name."),
                member(c"profile", OBJECT, offset_of!(ConnFields, profile), false, c"The flow's parameter profile: rfc, ns2, opnet or linux."),
            ],
            conn_dealloc,
        )
    })
}

fn ack_type(py: Python<'_>) -> PyResult<&Py<PyType>> {
    use ffi::{Py_T_OBJECT_EX as OBJECT, Py_T_UINT as UINT};
    ACK_TYPE.get_or_try_init(py, || {
        make_type(
            py,
            c"renolab._core.Ack",
            c"What one ACK told the sender (`ack`).",
            size_of::<AckFields>(),
            vec![
                member(c"acked", OBJECT, offset_of!(AckFields, acked), false, c"Segments newly acknowledged cumulatively (and not SACKed before)."),
                member(c"sacked", OBJECT, offset_of!(AckFields, sacked), false, c"Segments newly reported by SACK blocks."),
                member(c"ce", OBJECT, offset_of!(AckFields, ce), false, c"The ACK carried ECN-Echo (the receiver saw Congestion Experienced)."),
                member(c"cwnd_limited", OBJECT, offset_of!(AckFields, cwnd_limited), false, c"The sender used its whole window in the last round trip (RFC 7661)."),
                member(c"app_limited", OBJECT, offset_of!(AckFields, app_limited), false, c"The delivery-rate sample was taken while the application limited sending."),
                member(c"rtt_s", OBJECT, offset_of!(AckFields, rtt_s), false, c"The RTT this ACK measured, seconds, or None."),
                member(c"min_rtt_s", OBJECT, offset_of!(AckFields, min_rtt_s), false, c"The smallest RTT measured so far, seconds, or None."),
                member(c"srtt_s", OBJECT, offset_of!(AckFields, srtt_s), false, c"The smoothed RTT, seconds, or None before the first sample."),
                member(c"delivery_rate_bps", OBJECT, offset_of!(AckFields, delivery_rate_bps), false, c"The delivery rate this ACK measured, bits per second of payload, or None (only the linux profile's recovery samples it)."),
                member(c"ack", UINT, offset_of!(AckFields, ack), false, c"The cumulative ACK: the next segment the receiver expects."),
                member(c"in_flight", UINT, offset_of!(AckFields, in_flight), false, c"Segments in flight after this ACK."),
            ],
            ack_dealloc,
        )
    })
}

fn event_type(py: Python<'_>) -> PyResult<&Py<PyType>> {
    use ffi::{Py_T_DOUBLE as DOUBLE, Py_T_OBJECT_EX as OBJECT};
    EVENT_TYPE.get_or_try_init(py, || {
        make_type(
            py,
            c"renolab._core.CongestionEvent",
            c"Why the window must come down (`event`).",
            size_of::<EventFields>(),
            vec![
                member(c"kind", OBJECT, offset_of!(EventFields, kind), false, c"fast_retransmit, rack_loss, timeout or ecn."),
                member(c"window", DOUBLE, offset_of!(EventFields, window), false, c"What a halving halves, segments: the flight size (rfc, opnet), ns-2's min(cwnd, receiver window) (ns2) or cwnd (linux)."),
            ],
            event_dealloc,
        )
    })
}

/// A new, zeroed instance of `tp` (object fields NULL).
fn alloc(py: Python<'_>, tp: &Py<PyType>) -> PyResult<Py<PyAny>> {
    // SAFETY: GenericAlloc zeroes the instance, sets its type and takes a reference to it.
    unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyType_GenericAlloc(tp.as_ptr() as *mut ffi::PyTypeObject, 0),
        )
        .map(Bound::unbind)
    }
}

/// Puts `value` (a new reference) in the object field `slot`, releasing what it held.
///
/// # Safety
/// `slot` is an object field of a live instance; the GIL is held.
unsafe fn store(slot: *mut *mut ffi::PyObject, value: *mut ffi::PyObject) {
    let old = ptr::replace(slot, value);
    ffi::Py_XDECREF(old);
}

/// A new reference to `object`.
fn new_ref(object: &Bound<'_, PyAny>) -> *mut ffi::PyObject {
    object.clone().into_ptr()
}

/// A new reference to None, or to a float of `value`.
fn float_or_none(py: Python<'_>, value: Option<f64>) -> *mut ffi::PyObject {
    match value {
        Some(x) => pyo3::types::PyFloat::new(py, x).into_any().into_ptr(),
        None => py.None().into_ptr(),
    }
}

/// A number field of `conn` the controller may set: the object last seen there (held, so
/// that its address is not reused while it is remembered) and its value.
struct NumberField {
    held: Py<PyAny>,
    value: f64,
}

/// What a field of `conn` holds after a call.
pub enum Read {
    /// What the engine left, or an object of the same value.
    Unchanged,
    /// The controller set this value.
    Set(f64),
    /// The controller set something that is not a number (the error) or deleted the field.
    Invalid(Option<PyErr>),
}

/// `conn` of one flow.
pub struct Conn {
    object: Py<PyAny>,
    cwnd: NumberField,
    ssthresh: NumberField,
    /// The pacing rate last seen (None or a number) and its value.
    pacing: Py<PyAny>,
}

impl Conn {
    /// A `conn` for flow `flow` (profile `profile`, `mss`-byte segments).
    pub fn new(
        py: Python<'_>,
        flow: &str,
        profile: &str,
        mss: u32,
        cwnd: f64,
        ssthresh: f64,
    ) -> PyResult<Self> {
        let object = alloc(py, conn_type(py)?)?;
        let f = object.as_ptr() as *mut ConnFields;
        let cwnd_object = pyo3::types::PyFloat::new(py, cwnd).into_any();
        let ssthresh_object = pyo3::types::PyFloat::new(py, ssthresh).into_any();
        let none = py.None();
        // SAFETY: a fresh instance of the Connection type, GIL held.
        unsafe {
            (*f).mss = mss;
            store(&mut (*f).cwnd, new_ref(&cwnd_object));
            store(&mut (*f).ssthresh, new_ref(&ssthresh_object));
            store(&mut (*f).pacing_rate_bps, new_ref(none.bind(py)));
            store(
                &mut (*f).flow,
                PyString::new(py, flow).into_any().into_ptr(),
            );
            store(
                &mut (*f).profile,
                PyString::new(py, profile).into_any().into_ptr(),
            );
        }
        Ok(Conn {
            object,
            cwnd: NumberField {
                held: cwnd_object.unbind(),
                value: cwnd,
            },
            ssthresh: NumberField {
                held: ssthresh_object.unbind(),
                value: ssthresh,
            },
            pacing: none,
        })
    }

    fn fields(&self) -> *mut ConnFields {
        self.object.as_ptr() as *mut ConnFields
    }

    /// Writes the engine's state before a call: a number field gets a new object only if
    /// the engine changed its value.
    #[inline]
    pub fn put(&mut self, py: Python<'_>, cwnd: f64, ssthresh: f64, now_ns: u64, now_s: f64) {
        let f = self.fields();
        // SAFETY: our instance, GIL held, no Python code running.
        unsafe {
            (*f).now_ns = now_ns;
            (*f).now_s = now_s;
            for (slot, field, value) in [
                (&mut (*f).cwnd, &mut self.cwnd, cwnd),
                (&mut (*f).ssthresh, &mut self.ssthresh, ssthresh),
            ] {
                if field.value != value {
                    let object = pyo3::types::PyFloat::new(py, value).into_any();
                    store(slot, new_ref(&object));
                    *field = NumberField {
                        held: object.unbind(),
                        value,
                    };
                }
            }
        }
    }

    /// What the controller left in `slot` (the field `field` tracks).
    ///
    /// # Safety
    /// `slot` is a field of our instance; the GIL is held.
    unsafe fn read(py: Python<'_>, slot: *mut *mut ffi::PyObject, field: &mut NumberField) -> Read {
        let now = *slot;
        if now == field.held.as_ptr() {
            return Read::Unchanged;
        }
        if now.is_null() {
            return Read::Invalid(None);
        }
        let value = ffi::PyFloat_AsDouble(now);
        if value == -1.0 {
            if let Some(err) = PyErr::take(py) {
                return Read::Invalid(Some(err));
            }
        }
        field.held = Bound::from_borrowed_ptr(py, now).unbind();
        if value == field.value {
            return Read::Unchanged;
        }
        field.value = value;
        Read::Set(value)
    }

    /// What the controller left in `conn.cwnd` after a call.
    #[inline]
    pub fn cwnd(&mut self, py: Python<'_>) -> Read {
        let f = self.fields();
        // SAFETY: our instance, GIL held, no Python code running.
        unsafe { Self::read(py, &mut (*f).cwnd, &mut self.cwnd) }
    }

    /// What the controller left in `conn.ssthresh` after a call.
    #[inline]
    pub fn ssthresh(&mut self, py: Python<'_>) -> Read {
        let f = self.fields();
        // SAFETY: as in cwnd().
        unsafe { Self::read(py, &mut (*f).ssthresh, &mut self.ssthresh) }
    }

    /// The pacing rate the controller asks for, if it changed it: `Some(Ok(None))` for
    /// None, `Some(Err)` for something that is not a number (or a deleted field).
    #[inline]
    pub fn pacing_rate(&mut self, py: Python<'_>) -> Option<Result<Option<f64>, Option<PyErr>>> {
        let f = self.fields();
        // SAFETY: as in cwnd().
        unsafe {
            let now = (*f).pacing_rate_bps;
            if now == self.pacing.as_ptr() {
                return None;
            }
            if now.is_null() {
                return Some(Err(None));
            }
            self.pacing = Bound::from_borrowed_ptr(py, now).unbind();
            if now == ffi::Py_None() {
                return Some(Ok(None));
            }
            let value = ffi::PyFloat_AsDouble(now);
            match PyErr::take(py) {
                Some(err) if value == -1.0 => Some(Err(Some(err))),
                _ => Some(Ok(Some(value))),
            }
        }
    }

    /// The object itself.
    pub fn object(&self) -> &Py<PyAny> {
        &self.object
    }
}

/// `ack` of one flow, with the values its objects hold (an object is replaced only when
/// its value changes).
pub struct AckObject {
    object: Py<PyAny>,
    acked: Option<u32>,
    sacked: Option<u32>,
    /// `ce`, `cwnd_limited`, `app_limited`.
    flags: Option<[bool; 3]>,
    rtt: Option<Option<SimDuration>>,
    min_rtt: Option<Option<SimDuration>>,
    srtt: Option<Option<SimDuration>>,
    mss: u32,
}

impl AckObject {
    /// An `ack` for a flow of `mss`-byte segments.
    pub fn new(py: Python<'_>, mss: u32) -> PyResult<Self> {
        let object = alloc(py, ack_type(py)?)?;
        let mut ack = AckObject {
            object,
            acked: None,
            sacked: None,
            flags: None,
            rtt: None,
            min_rtt: None,
            srtt: None,
            mss,
        };
        ack.put(
            py,
            &AckSample::new(renolab_core::time::SimTime::ZERO, 0, 0),
            None,
            None,
        );
        Ok(ack)
    }

    /// The object itself.
    pub fn object(&self) -> &Py<PyAny> {
        &self.object
    }

    /// Fills the object from `sample`, with the smallest and smoothed RTTs known.
    #[inline]
    pub fn put(
        &mut self,
        py: Python<'_>,
        sample: &AckSample,
        min_rtt: Option<SimDuration>,
        srtt: Option<SimDuration>,
    ) {
        let f = self.object.as_ptr() as *mut AckFields;
        let secs = |d: Option<SimDuration>| d.map(|d| d.as_secs_f64());
        let bool_object = |b: bool| {
            pyo3::types::PyBool::new(py, b)
                .to_owned()
                .into_any()
                .into_ptr()
        };
        // SAFETY: our instance, GIL held, no Python code running.
        unsafe {
            (*f).ack = sample.ack;
            (*f).in_flight = sample.in_flight;
            for (slot, cache, value) in [
                (&mut (*f).acked, &mut self.acked, sample.acked),
                (&mut (*f).sacked, &mut self.sacked, sample.sacked),
            ] {
                if *cache != Some(value) {
                    *cache = Some(value);
                    store(
                        slot,
                        value
                            .into_pyobject(py)
                            .map(|v| v.into_any().into_ptr())
                            .unwrap_or_else(|e| match e {}),
                    );
                }
            }
            let flags = [
                sample.ece,
                sample.cwnd_limited,
                sample.rate.is_some_and(|r| r.app_limited),
            ];
            if self.flags != Some(flags) {
                self.flags = Some(flags);
                store(&mut (*f).ce, bool_object(flags[0]));
                store(&mut (*f).cwnd_limited, bool_object(flags[1]));
                store(&mut (*f).app_limited, bool_object(flags[2]));
            }
            for (slot, cache, value) in [
                (&mut (*f).rtt_s, &mut self.rtt, sample.rtt),
                (&mut (*f).min_rtt_s, &mut self.min_rtt, min_rtt),
                (&mut (*f).srtt_s, &mut self.srtt, srtt),
            ] {
                if *cache != Some(value) {
                    *cache = Some(value);
                    store(slot, float_or_none(py, secs(value)));
                }
            }
            let rate = sample
                .rate
                .and_then(|r| r.segments_per_sec())
                .map(|s| s * 8.0 * self.mss as f64);
            if rate.is_some()
                || (*f).delivery_rate_bps.is_null()
                || (*f).delivery_rate_bps != ffi::Py_None()
            {
                store(&mut (*f).delivery_rate_bps, float_or_none(py, rate));
            }
        }
    }
}

/// `event` of one flow.
pub struct EventObject(Py<PyAny>);

impl EventObject {
    /// An `event`.
    pub fn new(py: Python<'_>) -> PyResult<Self> {
        let event = EventObject(alloc(py, event_type(py)?)?);
        event.put(py, Congestion::Timeout, Window::segments(1));
        Ok(event)
    }

    /// The object itself.
    pub fn object(&self) -> &Py<PyAny> {
        &self.0
    }

    /// Fills the object.
    pub fn put(&self, py: Python<'_>, kind: Congestion, window: Window) {
        let f = self.0.as_ptr() as *mut EventFields;
        let name = PyString::intern(py, kind.name()).into_any().into_ptr();
        // SAFETY: our instance, GIL held, no Python code running.
        unsafe {
            store(&mut (*f).kind, name);
            (*f).window = window.as_f64();
        }
    }
}

/// The smallest window a controller may set, segments (RFC 5681 §3.1's loss window).
pub const MIN_CWND_SEGMENTS: f64 = 1.0;

/// `ca_increment(cwnd)`: the built-in Reno's per-ACK congestion-avoidance step for a
/// window of `cwnd` segments, exactly as its fixed point computes it (1/cwnd rounded down
/// to 1/2^32 of a segment, one unit less when cwnd is a power of two): `cwnd +
/// ca_increment(cwnd)` is the built-in's next window, bit for bit.
unsafe extern "C" fn ca_increment(
    _module: *mut ffi::PyObject,
    arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let cwnd = ffi::PyFloat_AsDouble(arg);
    if cwnd == -1.0 && !ffi::PyErr_Occurred().is_null() {
        return ptr::null_mut();
    }
    if !(cwnd >= MIN_CWND_SEGMENTS && cwnd.is_finite()) {
        ffi::PyErr_SetString(
            ffi::PyExc_ValueError,
            c"ca_increment: a window is a finite number of segments, at least 1".as_ptr(),
        );
        return ptr::null_mut();
    }
    let w = Window::from_f64(cwnd);
    // Both on the 1/2^32 grid and below 2^53 units: the difference is exact.
    ffi::PyFloat_FromDouble(w.plus_reciprocal().as_f64() - w.as_f64())
}

/// The method table entry of `ca_increment`: a static the function object points to.
struct MethodDef(ffi::PyMethodDef);
// SAFETY: read-only after creation; CPython only reads it.
unsafe impl Sync for MethodDef {}

static CA_INCREMENT: MethodDef = MethodDef(ffi::PyMethodDef {
    ml_name: c"ca_increment".as_ptr(),
    ml_meth: ffi::PyMethodDefPointer { PyCFunction: ca_increment },
    ml_flags: ffi::METH_O,
    ml_doc: c"ca_increment(cwnd, /)\n--\n\nThe built-in Reno's per-ACK congestion-avoidance step for a window of cwnd segments, exactly as its fixed point computes it: cwnd + ca_increment(cwnd) is the built-in's next window, bit for bit.".as_ptr(),
});

/// Adds the types and `ca_increment` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Connection", conn_type(py)?.bind(py))?;
    m.add("Ack", ack_type(py)?.bind(py))?;
    m.add("CongestionEvent", event_type(py)?.bind(py))?;
    // SAFETY: the method definition is a static; the module name is a new reference.
    let function = unsafe {
        let name = m.name()?;
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyCFunction_NewEx(
                &CA_INCREMENT.0 as *const ffi::PyMethodDef as *mut ffi::PyMethodDef,
                ptr::null_mut(),
                name.as_ptr(),
            ),
        )?
    };
    m.add("ca_increment", function)
}
