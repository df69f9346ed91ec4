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
///
/// Stub nodes (one link to one neighbour, on no medium: the hosts at the edge of a dumbbell)
/// are left out of the table: a stub leaves by its one direction, and a route to a stub is
/// the route to its neighbour and then the last hop. Taking the stub's place in the search
/// changes no other node's route (its only way in and out is its neighbour), so the routes
/// are those of the full table; a 2,002-node dumbbell keeps a 2 x 2 table instead of a 16 MB
/// one filled in 0.3 s. The table is stored by destination (`next[dst * core + node]`): a
/// search fills one destination's row, and one packet's hops read one row.
#[derive(Debug, Clone)]
pub struct Routes {
    /// Nodes in the table.
    core: usize,
    /// Where each node is: its place in the table, or a stub's ways out and in (one load
    /// per node on a hop, where a place and then a stub took two: 8 M fewer instructions
    /// at 1,000 flows, callgrind).
    places: Vec<Place>,
    next: Vec<u32>,
    /// Number of link directions: codes from here on are medium hops.
    dirs: u32,
    /// Every node of the table reaches every other: a stub's way out needs no check.
    connected: bool,
    /// For each medium hop code (minus `dirs`): the medium, the position of the node it
    /// reaches among the medium's nodes, and that node.
    medium_hops: Vec<MediumHop>,
    /// In a network of at most [`FLAT_NODES`] nodes, every next hop, stubs included, at
    /// `flat[node * nodes + dst]` ([`UNREACHABLE`] where there is none, and from a node to
    /// itself); empty otherwise. One load per hop instead of up to four: 25 M fewer
    /// instructions on the reference dumbbell (22 nodes, callgrind).
    flat: Vec<u32>,
    /// Nodes in the network (the flat table's row length).
    nodes: usize,
}

/// Largest network given a flat next-hop table: 128 x 128 entries are 64 KiB.
const FLAT_NODES: usize = 128;

/// Where a node is, for [`Routes::stub_next_hop`].
#[derive(Debug, Clone, Copy)]
struct Place {
    /// The node's index in the table, or [`STUB`] for a stub.
    index: u32,
    /// The index in the table of the node that routes towards this one: a stub's
    /// neighbour, a node of the table itself.
    via: u32,
    /// A stub's direction out and direction in (unused for a node of the table).
    out: u32,
    into: u32,
}

/// A node with one link to one neighbour.
#[derive(Debug, Clone, Copy)]
struct Stub {
    neighbour: u32,
    /// The neighbour's index in the table (filled once every node has its place).
    neighbour_place: u32,
    out: u32,
    into: u32,
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
/// Marks a stub in [`Routes::place`] (no scenario has 2^31 nodes).
const STUB: u32 = 1 << 31;

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
        Routes::build(nodes, dirs, media, true)
    }

    /// As [`Routes::with_media`]; without `stubs`, every node is in the table.
    fn build(nodes: usize, dirs: &[(u32, u32)], media: &[Vec<u32>], stubs: bool) -> Self {
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
        // Incoming and outgoing directions of each node, in scenario order.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (i, &(from, to)) in dirs.iter().enumerate() {
            incoming[to as usize].push(i as u32);
            outgoing[from as usize].push(i as u32);
        }
        // A stub: one direction out and one in, to and from one neighbour that is no stub
        // itself (two nodes joined only to each other both stay in the table).
        let stub_of = |v: usize| -> Option<Stub> {
            let (&[out], &[into]) = (&outgoing[v][..], &incoming[v][..]) else {
                return None;
            };
            let neighbour = dirs[out as usize].1;
            let lone = neighbour as usize != v
                && dirs[into as usize].0 == neighbour
                && memberships[v].is_empty();
            lone.then_some(Stub {
                neighbour,
                neighbour_place: 0,
                out,
                into,
            })
        };
        let candidate: Vec<Option<Stub>> = (0..nodes)
            .map(|v| if stubs { stub_of(v) } else { None })
            .collect();
        let mut place = vec![0u32; nodes];
        let mut found = Vec::new();
        let mut core_nodes = Vec::with_capacity(nodes);
        for v in 0..nodes {
            match candidate[v] {
                Some(s) if candidate[s.neighbour as usize].is_none() => {
                    place[v] = STUB | found.len() as u32;
                    found.push(s);
                }
                _ => {
                    place[v] = core_nodes.len() as u32;
                    core_nodes.push(v);
                }
            }
        }
        let core = core_nodes.len();
        let is_core = |u: usize| place[u] & STUB == 0;
        let mut next = vec![UNREACHABLE; core * core];
        let mut expanded = vec![false; media.len()];
        let mut dist = vec![u32::MAX; nodes];
        let mut frontier = VecDeque::new();
        for (row, &dst) in core_nodes.iter().enumerate() {
            let next = &mut next[row * core..(row + 1) * core];
            dist.fill(u32::MAX);
            expanded.fill(false);
            dist[dst] = 0;
            frontier.clear();
            frontier.push_back(dst);
            while let Some(v) = frontier.pop_front() {
                for &d in &incoming[v] {
                    let u = dirs[d as usize].0 as usize;
                    if dist[u] == u32::MAX && is_core(u) {
                        dist[u] = dist[v] + 1;
                        next[place[u] as usize] = d;
                        frontier.push_back(u);
                    }
                }
                // Every node of a medium that `v` is on reaches `v` in one hop. The first
                // of its nodes reached is the closest to `dst`: later ones offer nothing.
                // (Nodes on a medium are never stubs.)
                for &(m, code) in &memberships[v] {
                    if std::mem::replace(&mut expanded[m as usize], true) {
                        continue;
                    }
                    for &u in &media[m as usize] {
                        let u = u as usize;
                        if dist[u] == u32::MAX {
                            dist[u] = dist[v] + 1;
                            next[place[u] as usize] = code;
                            frontier.push_back(u);
                        }
                    }
                }
            }
        }
        for stub in &mut found {
            stub.neighbour_place = place[stub.neighbour as usize];
        }
        let places = place
            .iter()
            .map(|&p| match found.get((p & !STUB) as usize) {
                Some(s) if p & STUB != 0 => Place {
                    index: STUB,
                    via: s.neighbour_place,
                    out: s.out,
                    into: s.into,
                },
                _ => Place {
                    index: p,
                    via: p,
                    out: UNREACHABLE,
                    into: UNREACHABLE,
                },
            })
            .collect();
        let connected = (0..core)
            .all(|row| (0..core).all(|col| row == col || next[row * core + col] != UNREACHABLE));
        let mut routes = Routes {
            core,
            places,
            next,
            dirs: dirs.len() as u32,
            connected,
            medium_hops,
            flat: Vec::new(),
            nodes,
        };
        if nodes <= FLAT_NODES {
            let flat = (0..nodes as u32)
                .flat_map(|node| (0..nodes as u32).map(move |dst| (node, dst)))
                .map(|(node, dst)| routes.stub_next_hop(node, dst).unwrap_or(UNREACHABLE))
                .collect();
            routes.flat = flat;
        }
        routes
    }

    /// Bytes the routes take (their table, most of it).
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<u32>() * (self.next.len() + self.flat.len())
            + std::mem::size_of::<Place>() * self.places.len()
    }

    /// The direction to take from `node` towards `dst`, `None` if unreachable or already there.
    ///
    /// On every hop of every packet: one lookup in a small network's flat table, otherwise
    /// [`Routes::stub_next_hop`]. Always inlined into the forwarding (its one hot caller): as
    /// a call it cost a tenth of a wired run's instructions.
    #[inline(always)]
    pub fn next_hop(&self, node: u32, dst: u32) -> Option<u32> {
        if !self.flat.is_empty() {
            let code = self.flat[node as usize * self.nodes + dst as usize];
            return (code != UNREACHABLE).then_some(code);
        }
        self.stub_next_hop(node, dst)
    }

    /// [`Routes::next_hop`] from the table without stubs: the places of `node` and `dst`,
    /// and at most one entry of the table.
    #[inline(always)]
    fn stub_next_hop(&self, node: u32, dst: u32) -> Option<u32> {
        if node == dst {
            return None;
        }
        // Towards a stub: towards its neighbour, then in.
        let to = self.places[dst as usize];
        let towards = to.via;
        let from = self.places[node as usize];
        let entry = |from: u32| self.next[towards as usize * self.core + from as usize];
        if from.index == STUB {
            // A stub's one way out, if its neighbour gets anywhere near `dst`.
            let reaches = self.connected || from.via == towards || entry(from.via) != UNREACHABLE;
            return reaches.then_some(from.out);
        }
        if from.index == towards {
            return (to.index == STUB).then_some(to.into);
        }
        let d = entry(from.index);
        (d != UNREACHABLE).then_some(d)
    }

    /// The medium hop coded `code` (a [`Routes::next_hop`] of at least the number of link
    /// directions).
    #[inline]
    pub fn medium_hop(&self, code: u32) -> MediumHop {
        self.medium_hops[(code - self.dirs) as usize]
    }

    /// The link directions from `from` to `to`, in order, where `far_end(d)` is the node
    /// direction `d` leads to; `None` when the route crosses a shared medium or there is
    /// none.
    pub fn link_path(&self, from: u32, to: u32, far_end: impl Fn(u32) -> u32) -> Option<Vec<u32>> {
        let mut dirs = Vec::new();
        let mut at = from;
        while at != to {
            let Some(Hop::Link(d)) = self.hop(at, to) else {
                return None;
            };
            dirs.push(d);
            at = far_end(d);
            if dirs.len() > self.dirs as usize {
                return None; // BFS routes have no loop; be safe all the same
            }
        }
        Some(dirs)
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

    impl Routes {
        fn stubs(&self) -> usize {
            self.places.iter().filter(|p| p.index == STUB).count()
        }
    }

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

    /// Every route of `Routes::with_media` against the full table's.
    fn same_as_the_full_table(nodes: usize, dirs: &[(u32, u32)], media: &[Vec<u32>]) {
        let ours = Routes::with_media(nodes, dirs, media);
        let full = Routes::build(nodes, dirs, media, false);
        assert_eq!(full.stubs(), 0);
        assert_eq!(ours.flat.len(), nodes * nodes, "small: a flat table too");
        for node in 0..nodes as u32 {
            for dst in 0..nodes as u32 {
                let expected = full.stub_next_hop(node, dst);
                let context = format!("from {node} to {dst} in {dirs:?}");
                assert_eq!(ours.stub_next_hop(node, dst), expected, "{context}");
                assert_eq!(ours.next_hop(node, dst), expected, "flat, {context}");
            }
        }
    }

    #[test]
    fn the_hosts_of_a_dumbbell_are_stubs_out_of_the_table() {
        // 0 = r1, 1 = r2; senders 2, 3 on r1, receivers 4, 5 on r2.
        let mut dirs = vec![(0, 1), (1, 0)];
        for (host, router) in [(2, 0), (3, 0), (4, 1), (5, 1)] {
            dirs.push((host, router));
            dirs.push((router, host));
        }
        let r = Routes::compute(6, &dirs);
        assert_eq!((r.core, r.stubs()), (2, 4));
        assert_eq!(r.next_hop(2, 4), Some(2), "out of the sender");
        assert_eq!(r.next_hop(0, 4), Some(0), "over the bottleneck");
        assert_eq!(r.next_hop(1, 4), Some(7), "into the receiver");
        assert_eq!(r.next_hop(4, 4), None);
        same_as_the_full_table(6, &dirs, &[]);
    }

    #[test]
    fn stubs_route_as_the_full_table_on_awkward_graphs() {
        // Two nodes joined only to each other; a one-way link; parallel links; a chain; a
        // stub on a medium's node; an isolated node (6); a node with a link to itself (7).
        let dirs = [
            (0, 1),
            (1, 0),
            (2, 3),
            (3, 2),
            (3, 4),
            (4, 3),
            (4, 5),
            (8, 9),
            (9, 8),
            (8, 9),
            (9, 8),
            (10, 2),
            (2, 10),
            (11, 12),
            (12, 11),
            (7, 7),
        ];
        same_as_the_full_table(14, &dirs, &[vec![12, 13, 3]]);
        // Pseudo-random graphs, sparse enough to have stubs and unreachable pairs.
        let mut x = 12345u64;
        let mut rand = |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        for _ in 0..200 {
            let nodes = 2 + rand(12) as usize;
            let mut dirs = Vec::new();
            for _ in 0..rand(2 * nodes as u64) {
                let (a, b) = (rand(nodes as u64) as u32, rand(nodes as u64) as u32);
                dirs.push((a, b));
                if rand(4) > 0 {
                    dirs.push((b, a));
                }
            }
            let media = if rand(3) == 0 {
                vec![vec![0, 1.min(nodes as u32 - 1)]]
            } else {
                vec![]
            };
            same_as_the_full_table(nodes, &dirs, &media);
        }
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let r = Routes::compute(4, &[(0, 1), (1, 0), (2, 3), (3, 2)]);
        assert_eq!(r.next_hop(0, 3), None);
        assert_eq!(r.next_hop(2, 3), Some(2));
    }
}
