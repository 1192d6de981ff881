//! Several replicas sharing one store divide the apps among themselves instead of each reconciling all of them:
//! membership in the store ([`membership`]: a heartbeat that lasts a lease), an app's owner among the live
//! members by rendezvous hashing ([`shard`]: pure), and the views each replica publishes of its apps for the
//! others' APIs ([`exchange`]), and the apps defined through any replica's API ([`directory`]). A replica that stops is dropped from the members when its lease runs out, and its
//! apps go to the others; operations stay fenced by their own claims whichever replica runs them.

pub mod directory;
pub mod exchange;
pub mod membership;
pub mod shard;

pub use exchange::{RECONCILE_REQUEST_PREFIX, ReconcileNow, ViewExchange};
pub use membership::MembershipKeeper;
pub use shard::{Membership, owner};
