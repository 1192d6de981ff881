//! The rules: which code runs for each rule the settings name, over which objects, and the reasons in one stable
//! order (object, rule, message; duplicates dropped).

pub mod images;
pub mod privileged;
pub mod pss;
pub mod resources;

use std::collections::BTreeSet;

use weft_sdk::gate::{GateRequest, Reason};

use crate::images::{ImageRef, RegistryPattern};
use crate::pods::PodSpec;
use crate::settings::{Rule, Settings};

/// What the rules know beyond the object they judge: the allowed registries and the request's image facts.
#[derive(Debug)]
pub struct Context<'a> {
    allowed_registries: &'a [RegistryPattern],
    /// The references (as rendered) that the request says are pinned: by a digest in the source or a resolved one.
    pinned: BTreeSet<&'a str>,
    /// The images Weft pinned, as they appear in the manifests (`web:1.4.2@sha256:…`) → as the source wrote them.
    pinned_by_host: std::collections::BTreeMap<String, &'a str>,
}

impl<'a> Context<'a> {
    /// The context of one request.
    pub fn new(settings: &'a Settings, request: &'a GateRequest) -> Context<'a> {
        let pinned = request
            .images
            .iter()
            .filter(|image| {
                image.pinned_in_source
                    || image
                        .digest
                        .as_deref()
                        .is_some_and(|digest| !digest.trim().is_empty())
            })
            .map(|image| image.reference.as_str())
            .collect();
        let pinned_by_host = request
            .images
            .iter()
            .filter(|image| !image.pinned_in_source)
            .filter_map(|image| {
                let digest = image.digest.as_deref()?;
                let written = weft_sdk::image::ImageReference::parse(&image.reference).ok()?;
                Some((written.pinned(digest), image.reference.as_str()))
            })
            .collect();
        Context {
            pinned_by_host,
            allowed_registries: &settings.allowed_registries,
            pinned,
        }
    }

    /// Whether the request says `reference` is pinned to a digest.
    pub fn is_pinned(&self, reference: &str) -> bool {
        self.pinned.contains(reference) || self.pinned_by_host.contains_key(reference)
    }

    /// The reference as the source wrote it: for an image the host pinned (`web:latest@sha256:…` in the manifest),
    /// the written one (`web:latest`), so a tag rule judges what the author chose; any other as it is.
    pub fn as_written<'r>(&'r self, reference: &'r str) -> &'r str {
        self.pinned_by_host
            .get(reference)
            .copied()
            .unwrap_or(reference)
    }

    /// Whether `image` comes from an allowed registry.
    pub fn is_allowed(&self, image: &ImageRef) -> bool {
        self.allowed_registries
            .iter()
            .any(|pattern| pattern.matches(image))
    }
}

/// The reasons found for one object.
#[derive(Debug)]
pub struct Findings<'a> {
    object: &'a str,
    reasons: Vec<Reason>,
}

impl<'a> Findings<'a> {
    /// Nothing found yet about `object` (a planned object's reference).
    pub fn new(object: &'a str) -> Findings<'a> {
        Findings {
            object,
            reasons: Vec::new(),
        }
    }

    /// Records that `object` breaks `rule` as `message` says.
    pub fn add(&mut self, rule: impl Into<String>, message: impl Into<String>) {
        self.reasons.push(Reason::new(self.object, rule, message));
    }

    /// What was found.
    pub fn into_reasons(self) -> Vec<Reason> {
        self.reasons
    }
}

/// Runs `rule` over one pod spec.
pub fn run(rule: Rule, context: &Context, pod: &PodSpec, findings: &mut Findings) {
    match rule {
        Rule::ImagesPinned => images::pinned(context, pod, findings),
        Rule::NoLatest => images::no_latest(context, pod, findings),
        Rule::Resources => resources::check(pod, findings),
        Rule::NoPrivileged => privileged::check(pod, findings),
        Rule::PssBaseline => pss::check(pss::Profile::Baseline, pod, findings),
        Rule::PssRestricted => pss::check(pss::Profile::Restricted, pod, findings),
    }
}

/// Every reason the settings' rules find in the objects that remain after the sync, sorted by object, rule and
/// message, without duplicates.
pub fn judge(settings: &Settings, request: &GateRequest) -> Vec<Reason> {
    let context = Context::new(settings, request);
    let mut reasons = Vec::new();
    for object in request
        .objects
        .iter()
        .filter(|object| object.change.remains())
    {
        let Some(pod) = PodSpec::find(&object.manifest) else {
            continue;
        };
        let mut findings = Findings::new(&object.reference);
        for &rule in &settings.rules {
            run(rule, &context, &pod, &mut findings);
        }
        reasons.extend(findings.into_reasons());
    }
    reasons.sort();
    reasons.dedup();
    reasons
}
