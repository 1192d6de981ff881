//! Generated identifiers: object uids, `generateName` suffixes, pod-template hashes and cluster IPs.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// A source of unique identifiers for one simulator.
#[derive(Debug)]
pub struct IdSource {
    seed: u64,
    counter: AtomicU64,
    next_cluster_ip: AtomicU32,
    next_load_balancer_ip: AtomicU32,
}

impl Default for IdSource {
    fn default() -> Self {
        Self {
            seed: RandomState::new().build_hasher().finish(),
            counter: AtomicU64::new(1),
            next_cluster_ip: AtomicU32::new(10),
            next_load_balancer_ip: AtomicU32::new(10),
        }
    }
}

/// Mixes a 64-bit value (splitmix64's finaliser).
pub fn mix(mut value: u64) -> u64 {
    value = value.wrapping_add(0x9e37_79b9_7f4a_7c15);
    value = (value ^ (value >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    value ^ (value >> 31)
}

/// A stable short hash of a text, as kube-controller-manager's pod-template-hash (10 characters of
/// the alphabet Kubernetes uses for generated names).
pub fn short_hash(text: &str, length: usize) -> String {
    let mut state: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        state ^= u64::from(byte);
        state = state.wrapping_mul(0x0100_0000_01b3);
    }
    encode_alphanumeric(mix(state), length)
}

const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

fn encode_alphanumeric(mut value: u64, length: usize) -> String {
    let mut text = String::with_capacity(length);
    for round in 0..length {
        if round % 12 == 11 {
            value = mix(value);
        }
        text.push(char::from(
            NAME_ALPHABET[(value % NAME_ALPHABET.len() as u64) as usize],
        ));
        value /= NAME_ALPHABET.len() as u64;
    }
    text
}

impl IdSource {
    fn next(&self) -> u64 {
        mix(self.seed ^ self.counter.fetch_add(1, Ordering::Relaxed))
    }

    /// A new uid in UUID form.
    pub fn uid(&self) -> String {
        let high = self.next();
        let low = self.next();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            high >> 32,
            (high >> 16) & 0xffff,
            high & 0x0fff,
            ((low >> 48) & 0x3fff) | 0x8000,
            low & 0xffff_ffff_ffff
        )
    }

    /// A random suffix for `metadata.generateName`, five characters like kube-apiserver's.
    pub fn name_suffix(&self) -> String {
        encode_alphanumeric(self.next(), 5)
    }

    /// The next Service cluster IP, in 10.96.0.0/16.
    pub fn cluster_ip(&self) -> String {
        let index = self.next_cluster_ip.fetch_add(1, Ordering::Relaxed);
        format!("10.96.{}.{}", (index >> 8) & 0xff, index & 0xff)
    }

    /// The next LoadBalancer ingress IP, in 172.18.255.0/24 (addresses are only ever reported, never used).
    pub fn load_balancer_ip(&self) -> String {
        let index = self.next_load_balancer_ip.fetch_add(1, Ordering::Relaxed);
        format!("172.18.255.{}", index % 250 + 1)
    }

    /// The next pod IP, in 10.244.0.0/16.
    pub fn pod_ip(&self) -> String {
        let index = self.counter.fetch_add(1, Ordering::Relaxed);
        format!("10.244.{}.{}", (index >> 8) & 0xff, (index & 0xff).max(2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uids_are_unique_and_uuid_shaped() {
        let ids = IdSource::default();
        let first = ids.uid();
        let second = ids.uid();
        assert_ne!(first, second);
        assert_eq!(first.len(), 36);
        assert_eq!(first.matches('-').count(), 4);
    }

    #[test]
    fn short_hashes_are_stable() {
        assert_eq!(short_hash("template-a", 10), short_hash("template-a", 10));
        assert_ne!(short_hash("template-a", 10), short_hash("template-b", 10));
        assert_eq!(short_hash("x", 10).len(), 10);
    }
}
