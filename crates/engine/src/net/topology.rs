//! The network a scenario describes, as a list of one-way links and a route per flow.
//!
//! Two forms of the config lead here. The general one (`topology`) names nodes, links between them and
//! each flow's route as a list of nodes. The dumbbell preset (`bottleneck`, seed 000's network) expands to
//! the same form, with link ids in a fixed order that the rest of the engine's determinism relies on:
//!
//! ```text
//!  0: left -> right (the bottleneck)        1: right -> left (its reverse, for ACKs)
//!  then for each flow i: src_i -> left, right -> dst_i, dst_i -> right, left -> src_i
//! ```
//! A reverse flow (`direction = reverse`: data right to left) has the same four access links in the same
//! places, with its sender src_i on the right and its receiver dst_i on the left:
//! `src_i -> right, left -> dst_i, dst_i -> left, right -> src_i`; its data takes link 1 and its ACKs
//! link 0. Forward flows' links and ids do not depend on whether other flows go the other way.
//! Writing that dumbbell out as links, in that order, gives a bit-identical run (tests/topology.rs).

use crate::config::{err, ConfigError, FlowDirection, LinkModelsConfig, NodeConfig, OverheadModel, QueueConfig, RateModelConfig, ScenarioConfig};
use std::collections::BTreeMap;

/// One link to build, in engine units.
#[derive(Clone, Debug)]
pub struct LinkPlan {
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_ns: u64,
    /// None: unbounded FIFO.
    pub queue: Option<QueueConfig>,
    pub loss_rate: f64,
    /// Processing delay of the node this link leaves (fixed ns, jitter ns), if any.
    pub processing: Option<(u64, u64)>,
    /// Rate trace or schedule, delay schedule, loss model, ARQ.
    pub models: LinkModelsConfig,
}

#[derive(Clone, Debug)]
pub struct Topology {
    pub links: Vec<LinkPlan>,
    /// Per flow, then per traffic source: link ids from sender to receiver, and back for the ACKs.
    pub routes: Vec<[Vec<u32>; 2]>,
    /// The link the summary's `bottleneck` describes.
    pub bottleneck: usize,
}

impl Topology {
    pub fn from_config(cfg: &ScenarioConfig) -> Result<Self, ConfigError> {
        match (&cfg.bottleneck, &cfg.topology) {
            (Some(_), _) => Ok(Self::dumbbell(cfg)),
            (None, Some(_)) => Self::general(cfg),
            (None, None) => Err(err("network", "a network needs a bottleneck (the dumbbell) or links")),
        }
    }

    fn dumbbell(cfg: &ScenarioConfig) -> Self {
        let b = cfg.bottleneck.as_ref().expect("dumbbell");
        let bottleneck = |name: &str, from: &str, to: &str, rate_bps: u64, delay_ns: u64, queue: &QueueConfig, loss_rate: f64, models: LinkModelsConfig| LinkPlan {
            name: name.into(),
            from: from.into(),
            to: to.into(),
            rate_bps,
            delay_ns,
            queue: Some(queue.clone()),
            loss_rate,
            processing: None,
            models,
        };
        let mut links = vec![
            bottleneck("bottleneck", "left", "right", b.rate_bps, b.delay_ns, &b.queue, b.loss_rate, b.models.clone()),
            bottleneck(
                "bottleneck.reverse",
                "right",
                "left",
                b.reverse_rate_bps.unwrap_or(b.rate_bps),
                b.reverse_delay_ns.unwrap_or(b.delay_ns),
                b.reverse_queue.as_ref().unwrap_or(&b.queue),
                0.0,
                b.reverse_models.clone(),
            ),
        ];
        let mut routes = Vec::with_capacity(cfg.flows.len() + cfg.traffic.len());
        // Each flow, then each traffic source (whose connections share its four access links), in order.
        let hosts = cfg.flows.iter().enumerate().map(|(i, f)| (format!("src{i}"), format!("dst{i}"), f));
        let sources = cfg.traffic.iter().enumerate().map(|(k, t)| (format!("{}.src{k}", t.group), format!("{}.dst{k}", t.group), &t.flow));
        for (src, dst, f) in hosts.chain(sources) {
            // The routers on the sender's side and on the receiver's side, and the bottleneck direction
            // the data crosses.
            let (near, far, data_link, ack_link) = match f.direction {
                FlowDirection::Forward => ("left", "right", 0, 1),
                FlowDirection::Reverse => ("right", "left", 1, 0),
            };
            let mut access = |from: &str, to: &str, delay_ns: u64| {
                links.push(LinkPlan {
                    name: format!("{from}->{to}"),
                    from: from.into(),
                    to: to.into(),
                    rate_bps: f.access_rate_bps,
                    delay_ns,
                    queue: None,
                    loss_rate: 0.0,
                    processing: None,
                    models: LinkModelsConfig::default(),
                });
                links.len() as u32 - 1
            };
            let src_fwd = access(&src, near, f.src_access_delay_ns);
            let dst_fwd = access(far, &dst, f.dst_access_delay_ns);
            let dst_rev = access(&dst, far, f.dst_access_delay_ns);
            let src_rev = access(near, &src, f.src_access_delay_ns);
            if f.overhead_ns > 0 && f.overhead_model == OverheadModel::PerPacket {
                links[src_fwd as usize].processing = Some((0, f.overhead_ns));
            }
            routes.push([vec![src_fwd, data_link, dst_fwd], vec![dst_rev, ack_link, src_rev]]);
        }
        Topology { links, routes, bottleneck: 0 }
    }

    fn general(cfg: &ScenarioConfig) -> Result<Self, ConfigError> {
        let t = cfg.topology.as_ref().expect("topology");
        let processing = |node: &str| {
            t.nodes
                .get(node)
                .filter(|n: &&NodeConfig| n.processing_delay_ns > 0 || n.processing_jitter_ns > 0)
                .map(|n| (n.processing_delay_ns, n.processing_jitter_ns))
        };
        let links: Vec<LinkPlan> = t
            .links
            .iter()
            .map(|l| LinkPlan {
                name: l.name.clone(),
                from: l.from.clone(),
                to: l.to.clone(),
                rate_bps: l.rate_bps,
                delay_ns: l.delay_ns,
                queue: l.queue.clone(),
                loss_rate: l.loss_rate,
                processing: processing(&l.from),
                models: l.models.clone(),
            })
            .collect();
        let by_ends: BTreeMap<(&str, &str), u32> =
            links.iter().enumerate().map(|(i, l)| ((l.from.as_str(), l.to.as_str()), i as u32)).collect();
        let resolve = |field: String, nodes: &[String]| -> Result<Vec<u32>, ConfigError> {
            if nodes.len() < 2 {
                return Err(err(field, "a route names at least two nodes: the sender's and the receiver's"));
            }
            nodes
                .windows(2)
                .map(|hop| {
                    by_ends.get(&(hop[0].as_str(), hop[1].as_str())).copied().ok_or_else(|| {
                        err(field.clone(), format!("no link from '{}' to '{}' (network.links)", hop[0], hop[1]))
                    })
                })
                .collect()
        };
        let mut routes = Vec::with_capacity(cfg.flows.len() + cfg.traffic.len());
        let flows = cfg.flows.iter().enumerate().map(|(i, f)| (format!("flows.{i}"), f));
        let sources = cfg.traffic.iter().enumerate().map(|(k, t)| (format!("traffic.{k}"), &t.flow));
        for (i, f) in flows.chain(sources) {
            let route = f.route.as_ref().expect("validated");
            let forward = resolve(format!("{i}.route"), route)?;
            let backward = match &f.ack_route {
                Some(r) => {
                    if r.first() != route.last() || r.last() != route.first() {
                        return Err(err(format!("{i}.ack_route"), "must lead from the route's last node back to its first"));
                    }
                    resolve(format!("{i}.ack_route"), r)?
                }
                None => {
                    let reversed: Vec<String> = route.iter().rev().cloned().collect();
                    resolve(format!("{i}.ack_route"), &reversed).map_err(|e| {
                        err(e.field, format!("{} for the ACKs, which by default retrace the route; add that link or give ack_route", e.message))
                    })?
                }
            };
            if forward.len() > u8::MAX as usize || backward.len() > u8::MAX as usize {
                return Err(err(format!("{i}.route"), format!("at most {} links", u8::MAX)));
            }
            routes.push([forward, backward]);
        }
        let bottleneck = match &t.bottleneck {
            Some(name) => links.iter().position(|l| &l.name == name).expect("validated"),
            None => links.iter().position(|l| l.queue.is_some()).unwrap_or(0),
        };
        Ok(Topology { links, routes, bottleneck })
    }

    /// For each link, whether it may hand its packets to the next hop at transmission time (see
    /// `net::link`): it is never the last hop of a route, and every link that follows it on a route is an
    /// unbounded FIFO without processing delay that no other link feeds.
    pub fn hand_off_links(&self) -> Vec<bool> {
        let n = self.links.len();
        // followers[l]: links right after l on some route (None: l ends a route); feeders likewise.
        let mut ends_route = vec![false; n];
        let mut followers: Vec<Vec<u32>> = vec![vec![]; n];
        let mut feeders: Vec<Vec<u32>> = vec![vec![]; n];
        for route in self.routes.iter().flat_map(|r| r.iter()) {
            if let Some(&last) = route.last() {
                ends_route[last as usize] = true;
            }
            for pair in route.windows(2) {
                let (a, b) = (pair[0] as usize, pair[1]);
                if !followers[a].contains(&b) {
                    followers[a].push(b);
                }
                if !feeders[b as usize].contains(&pair[0]) {
                    feeders[b as usize].push(pair[0]);
                }
            }
        }
        (0..n)
            .map(|id| {
                !ends_route[id]
                    && !followers[id].is_empty()
                    && followers[id].iter().all(|&next| {
                        let plan = &self.links[next as usize];
                        // A bearer times its packets when they start, from a scheduled queue
                        // (`Link::with_capacity`): it cannot take packets ahead of their arrival.
                        let bearer = matches!(plan.models.rate_model, Some(RateModelConfig::Bearer { .. }));
                        plan.queue.is_none() && plan.processing.is_none() && !bearer && feeders[next as usize] == [id as u32]
                    })
            })
            .collect()
    }
}
