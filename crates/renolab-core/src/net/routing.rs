//! Static shortest-path routing (fewest hops, as ns-2's default static routing), computed
//! once for every destination by a breadth-first search over the reversed graph.
//! Ties are broken by link order in the scenario, so routes are deterministic.

use std::collections::VecDeque;

/// Next-hop table: for each (node, destination) the link direction to take.
#[derive(Debug, Clone)]
pub struct Routes {
    nodes: usize,
    next: Vec<u32>,
}

/// Marks "no route" in the table.
const UNREACHABLE: u32 = u32::MAX;

impl Routes {
    /// Computes routes for `nodes` nodes joined by directions given as `(from, to)` pairs;
    /// direction `i` of the slice is link direction `i`.
    pub fn compute(nodes: usize, dirs: &[(u32, u32)]) -> Self {
        let mut next = vec![UNREACHABLE; nodes * nodes];
        // Incoming directions of each node, in scenario order.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (i, &(_, to)) in dirs.iter().enumerate() {
            incoming[to as usize].push(i as u32);
        }
        let mut dist = vec![u32::MAX; nodes];
        let mut frontier = VecDeque::new();
        for dst in 0..nodes {
            dist.fill(u32::MAX);
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
            }
        }
        Routes { nodes, next }
    }

    /// The direction to take from `node` towards `dst`, `None` if unreachable or already there.
    #[inline]
    pub fn next_hop(&self, node: u32, dst: u32) -> Option<u32> {
        let d = self.next[node as usize * self.nodes + dst as usize];
        (d != UNREACHABLE).then_some(d)
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
    fn disconnected_nodes_have_no_route() {
        let r = Routes::compute(4, &[(0, 1), (1, 0), (2, 3), (3, 2)]);
        assert_eq!(r.next_hop(0, 3), None);
        assert_eq!(r.next_hop(2, 3), Some(2));
    }
}
