//! Names of nodes and flows in order of first appearance, found by hashing: a scenario may
//! name a million flows, and a linear search per reference would make validation quadratic
//! (55,000 flows took 15 s to check for duplicate names).

use std::collections::HashMap;

/// Names in order, each with its position.
#[derive(Debug, Default)]
pub(super) struct Names {
    list: Vec<String>,
    positions: HashMap<String, u32>,
}

impl Names {
    /// Appends `name`; false (and nothing changes) if it is already there.
    pub(super) fn insert(&mut self, name: &str) -> bool {
        if self.positions.contains_key(name) {
            return false;
        }
        self.positions
            .insert(name.to_string(), self.list.len() as u32);
        self.list.push(name.to_string());
        true
    }

    /// The position of `name`, if it is there.
    pub(super) fn position(&self, name: &str) -> Option<u32> {
        self.positions.get(name).copied()
    }

    /// The names, in order.
    pub(super) fn into_vec(self) -> Vec<String> {
        self.list
    }
}

impl std::ops::Deref for Names {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_their_order_and_refuse_a_repeat() {
        let mut names = Names::default();
        assert!(names.insert("b") && names.insert("a"));
        assert!(!names.insert("b"));
        assert_eq!(&names[..], ["b", "a"]);
        assert_eq!((names.position("a"), names.position("c")), (Some(1), None));
    }
}
