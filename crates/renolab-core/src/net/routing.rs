//! Static shortest-path routing (fewest hops, as ns-2's default static routing), computed
//! once for every destination by a breadth-first search over the reversed graph.
//! Ties are broken by link order in the scenario, then by medium order, so routes are
//! deterministic.
//!
//! A shared medium joins all its nodes to each other in one hop: to the search it is a
//! hyperedge, expanded once per destination (when the first of its nodes is reached), so a
//! medium of k nodes costs O(k) per destination rather than the O(k^2) of a full mesh of
//! link directions.

use std::collections::VecDeque;

/// Next-hop table: for each (node, destination) the link direction or medium to take.
///
/// A next hop is coded as a `u32`: link direction `d` as `d`, and "cross medium m to its
/// node at position p" as the number of link directions plus the position of (m, p) among
/// all media's nodes, in order ([`Routes::hop`] decodes it).
#[derive(Debug, Clone)]
pub struct Routes {
    nodes: usize,
    next: Vec<u32>,
    /// Number of link directions: codes from here on are medium hops.
    dirs: u32,
    /// For each medium hop code (minus `dirs`): the medium, the position of the node it
    /// reaches among the medium's nodes, and that node.
    medium_hops: Vec<MediumHop>,
}

/// A next hop across a shared medium.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MediumHop {
    /// Index of the medium.
    pub medium: u32,
    /// Position, among the medium's nodes, of the node the hop reaches (its station).
    pub station: u32,
    /// The node the hop reaches.
    pub node: u32,
}

/// A decoded next hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hop {
    /// Link direction `d`.
    Link(u32),
    /// Across a medium.
    Medium(MediumHop),
}

/// Marks "no route" in the table.
const UNREACHABLE: u32 = u32::MAX;

impl Routes {
    /// Computes routes for `nodes` nodes joined by directions given as `(from, to)` pairs;
    /// direction `i` of the slice is link direction `i`.
    pub fn compute(nodes: usize, dirs: &[(u32, u32)]) -> Self {
        Routes::with_media(nodes, dirs, &[])
    }

    /// Computes routes for `nodes` nodes joined by link directions given as `(from, to)`
    /// pairs (direction `i` of the slice is link direction `i`) and by `media`, each given
    /// as the list of its nodes.
    pub fn with_media(nodes: usize, dirs: &[(u32, u32)], media: &[Vec<u32>]) -> Self {
        let mut next = vec![UNREACHABLE; nodes * nodes];
        let mut medium_hops = Vec::new();
        // The media each node belongs to, with the code base of each medium's hops.
        let mut memberships: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nodes];
        for (m, members) in media.iter().enumerate() {
            let base = dirs.len() as u32 + medium_hops.len() as u32;
            for (position, &node) in members.iter().enumerate() {
                memberships[node as usize].push((m as u32, base + position as u32));
                medium_hops.push(MediumHop {
                    medium: m as u32,
                    station: position as u32,
                    node,
                });
            }
        }
        let mut expanded = vec![false; media.len()];
        // Incoming directions of each node, in scenario order.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (i, &(_, to)) in dirs.iter().enumerate() {
            incoming[to as usize].push(i as u32);
        }
        let mut dist = vec![u32::MAX; nodes];
        let mut frontier = VecDeque::new();
        for dst in 0..nodes {
            dist.fill(u32::MAX);
            expanded.fill(false);
            dist[dst] = 0;
            frontier.clear();
            frontier.push_back(dst);
            while let Some(v) = frontier.pop_front() {
                for &d in &incoming[v] {
                    let u = dirs[d as usize].0 as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        next[u * nodes + dst] = d;
                        frontier.push_back(u);
                    }
                }
                // Every node of a medium that `v` is on reaches `v` in one hop. The first
                // of its nodes reached is the closest to `dst`: later ones offer nothing.
                for &(m, code) in &memberships[v] {
                    if std::mem::replace(&mut expanded[m as usize], true) {
                        continue;
                    }
                    for &u in &media[m as usize] {
                        let u = u as usize;
                        if dist[u] == u32::MAX {
                            dist[u] = dist[v] + 1;
                            next[u * nodes + dst] = code;
                            frontier.push_back(u);
                        }
                    }
                }
            }
        }
        Routes {
            nodes,
            next,
            dirs: dirs.len() as u32,
            medium_hops,
        }
    }

    /// The direction to take from `node` towards `dst`, `None` if unreachable or already there.
    #[inline]
    pub fn next_hop(&self, node: u32, dst: u32) -> Option<u32> {
        let d = self.next[node as usize * self.nodes + dst as usize];
        (d != UNREACHABLE).then_some(d)
    }

    /// The medium hop coded `code` (a [`Routes::next_hop`] of at least the number of link
    /// directions).
    #[inline]
    pub fn medium_hop(&self, code: u32) -> MediumHop {
        self.medium_hops[(code - self.dirs) as usize]
    }

    /// The next hop from `node` towards `dst`, decoded.
    pub fn hop(&self, node: u32, dst: u32) -> Option<Hop> {
        let code = self.next_hop(node, dst)?;
        Some(if code < self.dirs {
            Hop::Link(code)
        } else {
            Hop::Medium(self.medium_hop(code))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_path_prefers_fewer_hops() {
        // 0 -> 1 -> 2 and a direct 0 -> 2; plus reverse directions.
        let dirs = [(0, 1), (1, 0), (1, 2), (2, 1), (0, 2), (2, 0)];
        let r = Routes::compute(3, &dirs);
        assert_eq!(r.next_hop(0, 2), Some(4));
        assert_eq!(r.next_hop(0, 1), Some(0));
        assert_eq!(r.next_hop(2, 1), Some(3));
        assert_eq!(r.next_hop(1, 1), None);
    }

    #[test]
    fn a_medium_joins_its_nodes_in_one_hop_and_links_win_ties() {
        // 0 -(link)- 1; medium {1, 2, 3}; 3 -(link)- 4; and a link 2 - 3 besides.
        let dirs = [(0, 1), (1, 0), (3, 4), (4, 3), (2, 3), (3, 2)];
        let r = Routes::with_media(5, &dirs, &[vec![1, 2, 3]]);
        let across = |station, node| {
            Some(Hop::Medium(MediumHop {
                medium: 0,
                station,
                node,
            }))
        };
        assert_eq!(r.hop(1, 3), across(2, 3));
        assert_eq!(r.hop(0, 4), Some(Hop::Link(0)));
        assert_eq!(
            r.hop(1, 4),
            across(2, 3),
            "to the node of the medium nearest to 4"
        );
        assert_eq!(
            r.hop(2, 3),
            Some(Hop::Link(4)),
            "a link and the medium tie: the link"
        );
        assert_eq!(r.hop(4, 0), Some(Hop::Link(3)));
        assert_eq!(r.hop(3, 0), across(0, 1));
        assert_eq!(r.next_hop(3, 0), Some(6), "after the six link directions");
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let r = Routes::compute(4, &[(0, 1), (1, 0), (2, 3), (3, 2)]);
        assert_eq!(r.next_hop(0, 3), None);
        assert_eq!(r.next_hop(2, 3), Some(2));
    }
}
