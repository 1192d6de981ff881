//! When each app is next reconciled: a queue ordered by due time, so the reconciler takes the most overdue app
//! first and finds its next wake-up without walking the fleet.

use std::collections::{BTreeSet, HashMap};

/// Apps by the time they are due (any ordered time: `tokio::time::Instant` in the reconciler, numbers in
/// tests). An app is in the queue at most once; one being reconciled is out of it until it is put back.
#[derive(Debug, Clone)]
pub struct DueQueue<T> {
    by_time: BTreeSet<(T, String)>,
    at: HashMap<String, T>,
}

impl<T> Default for DueQueue<T> {
    fn default() -> Self {
        DueQueue {
            by_time: BTreeSet::new(),
            at: HashMap::new(),
        }
    }
}

impl<T: Ord + Copy> DueQueue<T> {
    /// Puts `name` in the queue due at `when`, in place of when it was due.
    pub fn set(&mut self, name: &str, when: T) {
        if let Some(old) = self.at.insert(name.to_string(), when) {
            self.by_time.remove(&(old, name.to_string()));
        }
        self.by_time.insert((when, name.to_string()));
    }

    /// Brings `name` forward to `when` if it is queued and due later; an app not in the queue (being
    /// reconciled) is left out.
    pub fn sooner(&mut self, name: &str, when: T) {
        if self.at.get(name).is_some_and(|due| *due > when) {
            self.set(name, when);
        }
    }

    /// Brings every queued app forward to `when` at the latest.
    pub fn all_sooner(&mut self, when: T) {
        let later: Vec<String> = self
            .by_time
            .iter()
            .rev()
            .take_while(|(due, _)| *due > when)
            .map(|(_, name)| name.clone())
            .collect();
        for name in later {
            self.set(&name, when);
        }
    }

    /// Takes `name` out of the queue.
    pub fn remove(&mut self, name: &str) -> Option<T> {
        let when = self.at.remove(name)?;
        self.by_time.remove(&(when, name.to_string()));
        Some(when)
    }

    /// Takes out the most overdue app due at or before `now`.
    pub fn pop_due(&mut self, now: T) -> Option<String> {
        let (when, _) = self.by_time.first()?;
        if *when > now {
            return None;
        }
        let (_, name) = self.by_time.pop_first()?;
        self.at.remove(&name);
        Some(name)
    }

    /// When the next app is due.
    pub fn next_due(&self) -> Option<T> {
        self.by_time.first().map(|(when, _)| *when)
    }

    /// Keeps only the apps `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        let gone: Vec<String> = self.at.keys().filter(|n| !keep(n)).cloned().collect();
        for name in gone {
            self.remove(&name);
        }
    }

    /// Whether `name` is queued.
    pub fn contains(&self, name: &str) -> bool {
        self.at.contains_key(name)
    }

    /// How many apps are queued.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether no app is queued.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_overdue_app_comes_first_and_nothing_before_it_is_due() {
        let mut queue = DueQueue::default();
        queue.set("c", 30);
        queue.set("a", 10);
        queue.set("b", 20);
        assert_eq!(queue.next_due(), Some(10));
        assert_eq!(queue.pop_due(5), None);
        assert_eq!(queue.pop_due(25).as_deref(), Some("a"));
        assert_eq!(queue.pop_due(25).as_deref(), Some("b"));
        assert_eq!(queue.pop_due(25), None);
        assert_eq!(queue.len(), 1);
        // Set again: moved, never twice.
        queue.set("c", 1);
        queue.set("c", 2);
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.pop_due(2).as_deref(), Some("c"));
        assert!(queue.is_empty());
    }

    #[test]
    fn sooner_only_brings_queued_apps_forward() {
        let mut queue = DueQueue::default();
        queue.set("a", 100);
        queue.sooner("a", 40);
        assert_eq!(queue.next_due(), Some(40));
        queue.sooner("a", 90);
        assert_eq!(queue.next_due(), Some(40), "never later");
        // Not queued (being reconciled): stays out.
        queue.sooner("running", 1);
        assert!(!queue.contains("running"));
        queue.set("b", 500);
        queue.set("c", 20);
        queue.all_sooner(30);
        let mut order = Vec::new();
        while let Some(name) = queue.pop_due(30) {
            order.push(name);
        }
        assert_eq!(order, ["c", "a", "b"]);
    }

    #[test]
    fn retained_and_removed_apps_leave_no_trace() {
        let mut queue = DueQueue::default();
        for (n, name) in ["a", "b", "c", "d"].into_iter().enumerate() {
            queue.set(name, n);
        }
        queue.retain(|name| name != "b");
        assert_eq!(queue.remove("c"), Some(2));
        assert_eq!(queue.remove("c"), None);
        let mut left = Vec::new();
        while let Some(name) = queue.pop_due(usize::MAX) {
            left.push(name);
        }
        assert_eq!(left, ["a", "d"]);
    }
}
