//! The registry: the one list of built-in controllers (the `controllers!` macro's invocation in
//! `cc/mod.rs`) and everything derived from their declarations.
//!
//! From one line per controller the list generates [`super::Variant`] (a flow's controller
//! with its configuration, as the scenario resolves it), [`super::Cc`] (the controller a
//! sender runs, a closed enum with a `match` in every method) and [`super::CONTROLLERS`]
//! (their declarations, in order). This module derives the rest: the `cc` trace's columns
//! and mode codes, the options table of docs/scenario.md, and the names the fuzz targets
//! draw from.

use std::sync::LazyLock;

use super::declare::{Declaration, OptionDecl, TraceField, TraceKind};
use super::CONTROLLERS;

/// Defines the registry from its list: `Arm(ConfigType => ControllerType),` per controller.
/// An entry may carry attributes (`#[cfg(test)]` for a controller that exists only in the
/// crate's tests).
#[macro_export]
#[doc(hidden)]
macro_rules! controllers {
    ($( $(#[$meta:meta])* $arm:ident($config:ty => $controller:ty) ),* $(,)?) => {
        /// A flow's congestion controller, with its configuration: one arm per registered
        /// controller, and a controller from outside the crate ([`Custom`]).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Variant {
            $( $(#[$meta])* #[allow(missing_docs)] $arm($config), )*
            /// A controller the crate does not define (`variant = "python:module:Class"`),
            /// built by the run's [`ControllerFactory`].
            Custom,
        }

        /// The controller a sender runs: every method is a `match`, no vtable (but for
        /// the custom controller's own calls). Not `Clone`: a custom controller (a Python
        /// object) has no meaningful copy.
        #[derive(Debug)]
        pub enum Cc {
            $( $(#[$meta])* #[allow(missing_docs)] $arm($controller), )*
            /// A controller from outside the crate ([`custom`]), off the built-ins' path.
            Custom(Custom),
        }

        /// The declarations of the built-in controllers, in the registry's order (the
        /// order of the scenario's "allowed" lists).
        pub const CONTROLLERS: &[&$crate::tcp::cc::declare::Declaration] = &[
            $( $(#[$meta])* <$config as $crate::tcp::cc::declare::Declared>::DECLARATION, )*
        ];

        impl Variant {
            /// The controller's declaration (`None` for a custom one).
            pub fn declaration(&self) -> Option<&'static $crate::tcp::cc::declare::Declaration> {
                match self {
                    $( $(#[$meta])* Variant::$arm(_) =>
                        Some(<$config as $crate::tcp::cc::declare::Declared>::DECLARATION), )*
                    Variant::Custom => None,
                }
            }

            /// The name used in scenario files; `"python"` for a custom controller, whose
            /// full name is the flow's `custom` reference.
            pub fn name(&self) -> &'static str {
                self.declaration().map_or("python", |d| d.name)
            }

            /// The registered controller called `name`, configured from `options`; `None`
            /// for a name not registered.
            pub fn configure(
                name: &str,
                options: &dyn $crate::tcp::cc::declare::OptionReader,
            ) -> Option<Result<Variant, $crate::tcp::cc::declare::OptionError>> {
                use $crate::tcp::cc::declare::Declared;
                $( $(#[$meta])*
                if name == <$config as Declared>::DECLARATION.name {
                    return Some(<$config>::configure(options).map(Variant::$arm));
                } )*
                None
            }

            /// The controller's options as the resolved JSON shows them.
            pub fn describe(&self) -> Vec<(&'static str, serde_json::Value)> {
                use $crate::tcp::cc::declare::Declared;
                match self {
                    $( $(#[$meta])* Variant::$arm(c) => c.describe(), )*
                    Variant::Custom => Vec::new(),
                }
            }

            /// The controller of a flow (`None` for a custom one, which its factory builds).
            pub fn build(
                &self,
                flow: &mut $crate::tcp::cc::declare::BuildContext<'_>,
            ) -> Option<Cc> {
                use $crate::tcp::cc::declare::Declared;
                match self {
                    $( $(#[$meta])* Variant::$arm(c) => Some(c.build(flow)), )*
                    Variant::Custom => None,
                }
            }
        }

        impl Cc {
            /// The controller's declaration (`None` for a custom one).
            pub fn declaration(&self) -> Option<&'static $crate::tcp::cc::declare::Declaration> {
                match self {
                    $( $(#[$meta])* Cc::$arm(_) =>
                        Some(<$config as $crate::tcp::cc::declare::Declared>::DECLARATION), )*
                    Cc::Custom(_) => None,
                }
            }

            /// The controller's values for the `cc` trace, in the trace's columns.
            pub fn cc_state(&self) -> CcState {
                match self {
                    $( $(#[$meta])* Cc::$arm(c) => CcState::of(
                        <$config as $crate::tcp::cc::declare::Declared>::DECLARATION,
                        |values| c.trace(values),
                    ), )*
                    Cc::Custom(_) => CcState::default(),
                }
            }
        }

        impl CongestionControl for Cc {
            #[inline]
            fn cwnd(&self) -> Window {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.cwnd())
            }
            #[inline]
            fn ssthresh(&self) -> Window {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.ssthresh())
            }
            #[inline]
            fn pacing_rate(&self) -> Option<BitsPerSec> {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.pacing_rate())
            }
            #[inline]
            fn tso_segs(&self) -> u32 {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.tso_segs())
            }
            #[inline]
            fn min_tso_segs(&self) -> Option<u32> {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.min_tso_segs())
            }
            fn set_cwnd(&mut self, cwnd: Window) {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.set_cwnd(cwnd))
            }
            fn set_ssthresh(&mut self, ssthresh: Window) {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.set_ssthresh(ssthresh))
            }
            fn deflate(&mut self, segments: u32) {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.deflate(segments))
            }
            #[inline(always)]
            fn on_event(&mut self, now: SimTime, event: CcEvent) {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.on_event(now, event))
            }
            #[inline]
            fn on_ack_sample(&mut self, sample: &AckSample) {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.on_ack_sample(sample))
            }
            #[inline]
            fn on_ack(&mut self, sample: &AckSample) {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.on_ack(sample))
            }
            fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window) {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.on_congestion(now, event, window))
            }
            fn undo_cwnd(&mut self, now: SimTime) -> Window {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.undo_cwnd(now))
            }
            #[inline]
            fn cong_control(&mut self, sample: &AckSample) -> Control {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.cong_control(sample))
            }
            fn trace(&self, values: &mut [f64]) {
                $crate::dispatch_cc!(self, [$($(#[$meta])* $arm),*], c => c.trace(values))
            }
        }
    };
}

/// `$e` for whichever controller `$self` is, bound to `$c` (the registry's dispatch).
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch_cc {
    ($self:ident, [$( $(#[$meta:meta])* $arm:ident ),*], $c:ident => $e:expr) => {
        match $self {
            $( $(#[$meta])* Cc::$arm($c) => $e, )*
            Cc::Custom($c) => $e,
        }
    };
}

/// The declaration of the controller called `name`, if one is registered.
pub fn declaration(name: &str) -> Option<&'static Declaration> {
    CONTROLLERS.iter().copied().find(|d| d.name == name)
}

/// The first registered controller that takes the option called `option`.
pub fn owner_of(option: &str) -> Option<&'static Declaration> {
    CONTROLLERS
        .iter()
        .copied()
        .find(|d| d.options.iter().any(|o| o.name == option))
}

/// The registered controllers' names, in order.
pub fn names() -> Vec<&'static str> {
    CONTROLLERS.iter().map(|d| d.name).collect()
}

/// Most columns the `cc` trace may have besides time and flow (a test checks the
/// registry's fit).
pub const MAX_CC_COLUMNS: usize = 24;

/// The columns the `cc` trace published before its layout came from the declarations, in
/// their order: a published table's columns are a contract (they keep their place, new
/// ones go at the end). Each is declared by a registered controller (checked by a test);
/// fields declared since follow, in the registry's order.
const PUBLISHED_CC_COLUMNS: &[&str] = &[
    "mode",
    "btl_bw_bps",
    "min_rtt_ns",
    "pacing_gain",
    "cwnd_gain",
    "pacing_rate_bps",
    "delivery_rate_bps",
    "w_max",
    "k_ns",
    "epoch_start_ns",
];

/// The `cc` trace's layout, derived once from the declarations.
struct Layout {
    /// The columns besides time and flow.
    columns: Vec<TraceField>,
    /// Per registered controller, the column of each of its declared fields.
    columns_of: Vec<Vec<usize>>,
    /// The mode codes: every declared mode once, in the registry's order.
    modes: Vec<&'static str>,
    /// Per registered controller, the code of each of its modes.
    codes_of: Vec<Vec<u8>>,
}

static LAYOUT: LazyLock<Layout> = LazyLock::new(|| {
    let declared = || CONTROLLERS.iter().flat_map(|d| d.trace.iter().copied());
    let mut columns: Vec<TraceField> = PUBLISHED_CC_COLUMNS
        .iter()
        .filter_map(|name| declared().find(|f| f.name == *name))
        .collect();
    for field in declared() {
        if !columns.iter().any(|c| c.name == field.name) {
            columns.push(field);
        }
    }
    let columns_of = CONTROLLERS
        .iter()
        .map(|d| {
            d.trace
                .iter()
                .map(|f| {
                    columns
                        .iter()
                        .position(|c| c.name == f.name)
                        .expect("a column")
                })
                .collect()
        })
        .collect();
    let mut modes: Vec<&'static str> = Vec::new();
    for mode in CONTROLLERS.iter().flat_map(|d| d.modes.iter().copied()) {
        if !modes.contains(&mode) {
            modes.push(mode);
        }
    }
    let codes_of = CONTROLLERS
        .iter()
        .map(|d| {
            d.modes
                .iter()
                .map(|m| modes.iter().position(|x| x == m).expect("a mode") as u8)
                .collect()
        })
        .collect();
    Layout {
        columns,
        columns_of,
        modes,
        codes_of,
    }
});

/// The `cc` trace's columns besides time and flow: the union of the registered
/// controllers' declared fields.
pub fn cc_columns() -> &'static [TraceField] {
    &LAYOUT.columns
}

/// Names of the modes the `cc` trace's `mode` column codes, by code.
pub fn cc_modes() -> &'static [&'static str] {
    &LAYOUT.modes
}

/// The code of "no mode" in the `mode` column.
pub const NO_MODE: u8 = u8::MAX;

/// A controller's state as the `cc` trace records it: one value per column of
/// [`cc_columns`], NaN where the controller has none (a mode as its code).
#[derive(Clone, Copy, Debug)]
pub struct CcState {
    values: [f64; MAX_CC_COLUMNS],
}

impl Default for CcState {
    /// No values: a controller with no more state than its window, which the `cwnd` trace
    /// records.
    fn default() -> Self {
        CcState {
            values: [f64::NAN; MAX_CC_COLUMNS],
        }
    }
}

impl PartialEq for CcState {
    /// Equal when every value has the same bits (so that NaN equals NaN: no change).
    fn eq(&self, other: &Self) -> bool {
        self.values
            .iter()
            .zip(&other.values)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl CcState {
    /// The state of a controller declared by `declaration`, whose `trace` fills its own
    /// fields' values (in its declaration's order).
    pub fn of(declaration: &Declaration, trace: impl FnOnce(&mut [f64])) -> Self {
        let mut own = [f64::NAN; MAX_CC_COLUMNS];
        let fields = declaration.trace;
        trace(&mut own[..fields.len()]);
        let Some(index) = CONTROLLERS
            .iter()
            .position(|d| std::ptr::eq(*d, declaration) || d.name == declaration.name)
        else {
            return CcState::default();
        };
        let mut state = CcState::default();
        for (i, field) in fields.iter().enumerate() {
            let value = own[i];
            let column = LAYOUT.columns_of[index][i];
            state.values[column] = match field.kind {
                TraceKind::Mode if !value.is_nan() => LAYOUT.codes_of[index][value as usize] as f64,
                _ => value,
            };
        }
        state
    }

    /// This state with column `name` set to `value`, for a state read from elsewhere (the
    /// emulator reads the kernel's from `TCP_INFO`); a name that is no column is ignored.
    pub fn with(mut self, name: &str, value: f64) -> Self {
        if let Some(i) = LAYOUT.columns.iter().position(|c| c.name == name) {
            self.values[i] = value;
        }
        self
    }

    /// The value of the column called `name` (NaN when it has none or there is no such column).
    pub fn named(&self, name: &str) -> f64 {
        LAYOUT
            .columns
            .iter()
            .position(|c| c.name == name)
            .map_or(f64::NAN, |i| self.values[i])
    }

    /// This state with the `mode` column set to the code of `mode`, one of the registered
    /// controllers' modes (ignored if none declares it).
    pub fn with_mode(self, mode: &str) -> Self {
        match LAYOUT.modes.iter().position(|m| *m == mode) {
            Some(code) => self.with("mode", code as f64),
            None => self,
        }
    }

    /// True when no column has a value.
    pub fn is_empty(&self) -> bool {
        self.values.iter().all(|v| v.is_nan())
    }

    /// The value of column `i` of [`cc_columns`] (NaN for none).
    pub fn value(&self, i: usize) -> f64 {
        self.values[i]
    }

    /// The mode code of column `i` (a `Mode` column), [`NO_MODE`] for none.
    pub fn mode(&self, i: usize) -> u8 {
        let v = self.values[i];
        if v.is_nan() {
            NO_MODE
        } else {
            v as u8
        }
    }
}

/// Every option a flow's `[flow.options]` may hold for some registered controller, in the
/// registry's order (for the fuzz targets).
pub fn option_names() -> Vec<&'static str> {
    let mut names = Vec::new();
    for d in CONTROLLERS {
        for o in d.options {
            if !names.contains(&o.name) {
                names.push(o.name);
            }
        }
    }
    names
}

/// The option of the controller called `variant` named `name`.
pub fn option(variant: &str, name: &str) -> Option<&'static OptionDecl> {
    declaration(variant)?
        .options
        .iter()
        .copied()
        .find(|o| o.name == name)
}

/// The rows of docs/scenario.md's table of the controllers' options: `| variant | option |
/// values | default |`.
pub fn options_table_rows() -> Vec<String> {
    let mut rows = Vec::new();
    for d in CONTROLLERS {
        for o in d.options {
            rows.push(option_row(&format!("`{}`", d.name), o));
        }
    }
    rows
}

/// A row of an options table: who takes the option, its name, what it takes and does, its
/// default and source.
pub fn option_row(owner: &str, o: &OptionDecl) -> String {
    let source = if o.source.is_empty() {
        String::new()
    } else {
        format!(" ({})", o.source)
    };
    format!(
        "| {owner} | `{}` | {}: {} | {}{source} |",
        o.name,
        o.kind.describe(),
        o.doc,
        o.default
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_published_column_is_declared_and_keeps_its_place() {
        let names: Vec<&str> = cc_columns().iter().map(|c| c.name).collect();
        assert_eq!(&names[..PUBLISHED_CC_COLUMNS.len()], PUBLISHED_CC_COLUMNS);
        assert!(names.len() <= MAX_CC_COLUMNS, "{names:?}");
    }

    #[test]
    fn declarations_are_consistent() {
        for d in CONTROLLERS {
            assert_eq!(
                CONTROLLERS.iter().filter(|o| o.name == d.name).count(),
                1,
                "{} registered once",
                d.name
            );
            let modes = d.trace.iter().filter(|f| f.kind == TraceKind::Mode).count();
            assert!(
                modes <= 1 && (modes == 1) != d.modes.is_empty(),
                "{}",
                d.name
            );
            for o in d.options {
                assert!(
                    !o.doc.is_empty() && !o.default.is_empty(),
                    "{}.{}",
                    d.name,
                    o.name
                );
            }
        }
    }
}
