//! Controllers the crate does not define: a Python class through the binding crate
//! (`variant = "python:module:Class"`), or any type an embedder writes.
//!
//! A scenario names such a controller; the code that runs the scenario supplies a
//! [`ControllerFactory`] (the simulation's `run_with`) that builds one per flow. The controller is one more arm of the closed enum [`super::Cc`], holding a
//! boxed trait object: the built-in variants keep their inline, statically dispatched arms,
//! and only a custom controller pays for the indirect calls.
//!
//! The engine has no error path through the controller hooks (a built-in controller cannot
//! fail). A custom controller whose code fails ends the run by unwinding with its own
//! payload (`std::panic::resume_unwind`, which runs no panic hook) up to the code that
//! supplied it, which catches it: the binding turns a Python exception into a
//! `SimulationError` that way. The simulation is then dropped half-way, which is safe: it
//! holds nothing outside itself.

use super::{AckSample, CcEvent, Congestion, CongestionControl};
use crate::tcp::config::Dialect;
use crate::tcp::window::Window;
use crate::time::SimTime;
use crate::units::BitsPerSec;

/// What a custom controller starts from: the flow's settings as the scenario resolved them.
#[derive(Clone, Copy, Debug)]
pub struct CustomInit<'a> {
    /// Index of the flow in the scenario.
    pub flow: u32,
    /// The flow's name.
    pub flow_name: &'a str,
    /// The controller as the scenario names it (`"python:<module or file.py>:<Class>"`).
    pub reference: &'a str,
    /// Its arguments (the flow's options that are not the sender's), as JSON values.
    pub args: &'a serde_json::Map<String, serde_json::Value>,
    /// Initial window, segments (the flow's `initial_window`).
    pub initial_window: u32,
    /// Initial slow-start threshold, segments.
    pub initial_ssthresh: u32,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Name of the flow's parameter profile.
    pub profile: &'static str,
    /// The rules the flow's endpoints follow.
    pub dialect: Dialect,
    /// The sender paces (`options.pacing`): the controller's pacing rate is used.
    pub pacing: bool,
    /// When the flow's application starts.
    pub start: SimTime,
}

/// Builds the custom controllers of a run, one per flow that names one, in flow order,
/// before the run starts.
pub trait ControllerFactory {
    /// The controller of the flow `init` describes.
    fn build(&mut self, init: &CustomInit<'_>) -> Box<dyn CongestionControl + Send>;
}

/// The factory of a run without custom controllers: asked for one, it panics (the engine's
/// entry points refuse such a scenario before they build anything, see
/// the simulation's `run`).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoCustomControllers;

impl ControllerFactory for NoCustomControllers {
    fn build(&mut self, init: &CustomInit<'_>) -> Box<dyn CongestionControl + Send> {
        panic!(
            "flow {}: variant {:?} needs a controller factory (the simulation's run_with)",
            init.flow_name, init.reference
        )
    }
}

/// A custom controller in the [`super::Cc`] enum: every hook goes to the boxed controller.
pub struct Custom(Box<dyn CongestionControl + Send>);

impl Custom {
    /// Wraps a controller built by a [`ControllerFactory`].
    pub fn new(controller: Box<dyn CongestionControl + Send>) -> Self {
        Custom(controller)
    }
}

impl std::fmt::Debug for Custom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Custom")
            .field("cwnd", &self.0.cwnd())
            .field("ssthresh", &self.0.ssthresh())
            .finish_non_exhaustive()
    }
}

// Cold and never inlined: the `match` of every `Cc` method then keeps the built-ins' arms
// as they were, and the custom arm is one call away.
impl CongestionControl for Custom {
    #[cold]
    #[inline(never)]
    fn cwnd(&self) -> Window {
        self.0.cwnd()
    }
    #[cold]
    #[inline(never)]
    fn ssthresh(&self) -> Window {
        self.0.ssthresh()
    }
    #[cold]
    #[inline(never)]
    fn pacing_rate(&self) -> Option<BitsPerSec> {
        self.0.pacing_rate()
    }
    #[cold]
    #[inline(never)]
    fn set_cwnd(&mut self, cwnd: Window) {
        self.0.set_cwnd(cwnd)
    }
    #[cold]
    #[inline(never)]
    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.0.set_ssthresh(ssthresh)
    }
    #[cold]
    #[inline(never)]
    fn deflate(&mut self, segments: u32) {
        self.0.deflate(segments)
    }
    #[cold]
    #[inline(never)]
    fn on_event(&mut self, now: SimTime, event: CcEvent) {
        self.0.on_event(now, event)
    }
    #[cold]
    #[inline(never)]
    fn on_ack_sample(&mut self, sample: &AckSample) {
        self.0.on_ack_sample(sample)
    }
    #[cold]
    #[inline(never)]
    fn on_ack(&mut self, sample: &AckSample) {
        self.0.on_ack(sample)
    }
    #[cold]
    #[inline(never)]
    fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window) {
        self.0.on_congestion(now, event, window)
    }
    #[cold]
    #[inline(never)]
    fn undo_cwnd(&mut self, now: SimTime) -> Window {
        self.0.undo_cwnd(now)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cc, Reno};
    use super::*;

    #[test]
    fn a_custom_arm_passes_every_hook_to_its_controller() {
        let mut cc = Cc::Custom(Custom::new(Box::new(Reno::new(2, 4, false))));
        cc.on_ack(&AckSample::new(SimTime::ZERO, 1, 1));
        cc.on_ack(&AckSample::new(SimTime::ZERO, 2, 1));
        assert_eq!(
            (cc.cwnd(), cc.ssthresh()),
            (Window::segments(4), Window::segments(4))
        );
        cc.on_congestion(SimTime::ZERO, Congestion::Timeout, Window::segments(8));
        assert_eq!(
            (cc.cwnd(), cc.ssthresh()),
            (Window::segments(1), Window::segments(4))
        );
        cc.set_cwnd(Window::segments(6));
        cc.deflate(2);
        assert_eq!(cc.cwnd(), Window::segments(4));
        assert!(format!("{cc:?}").starts_with("Custom(Custom { cwnd: Window("));
    }
}
