//! The image resolver against the real CNCF distribution registry (`docker-registry`), on a free loopback port over
//! plain HTTP: images are pushed through the OCI distribution API (blobs by monolithic upload, manifests and an
//! index by tag), then resolved; a moved tag, a deleted manifest and htpasswd authentication are checked too.
//! Without the registry the checks are reported ignored, and under CI (`CI=true`) they fail.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use weft_source::images::{Clock, ImageError, ImageReference, ImageResolver};
use weft_source::{CredentialSet, CredentialSpec};
use weft_test_reference::{Failed, OCI_INDEX, OCI_MANIFEST, Reference, Registry};

/// Long enough that nothing expires during a check on a loaded machine unless the check moves the clock.
const TTL: Duration = Duration::from_secs(3600);

fn main() -> ExitCode {
    let registry = Reference::docker_registry();
    let binary = registry.path().map(Path::to_path_buf).unwrap_or_default();
    let trial = |name: &str, check: fn(&Path)| {
        let binary = binary.clone();
        registry.trial(name, move || {
            check(&binary);
            Ok::<(), Failed>(())
        })
    };
    let trials = vec![
        trial(
            "a_tag_resolves_to_the_pushed_manifests_digest_and_an_index_to_its_own",
            a_tag_resolves_to_the_pushed_manifests_digest_and_an_index_to_its_own,
        ),
        trial(
            "a_moved_tag_shows_in_a_fresh_resolution_and_the_cache_keeps_the_old_digest_until_then",
            a_moved_tag_shows_in_a_fresh_resolution_and_the_cache_keeps_the_old_digest_until_then,
        ),
        trial(
            "a_deleted_manifest_is_a_missing_tag_naming_the_reference",
            a_deleted_manifest_is_a_missing_tag_naming_the_reference,
        ),
        trial(
            "with_htpasswd_only_the_operators_credential_resolves",
            with_htpasswd_only_the_operators_credential_resolves,
        ),
    ];
    weft_test_reference::run(&[&registry], trials)
}

/// Pushes a one-layer `architecture`/linux image whose layer holds `content`, tagged `tag` (or by digest alone
/// when `None`); the manifest's digest.
fn push_image(
    registry: &Registry,
    repository: &str,
    tag: Option<&str>,
    architecture: &str,
    content: &str,
) -> String {
    let config = format!(
        r#"{{"architecture":"{architecture}","os":"linux","config":{{"Labels":{{"content":"{content}"}}}},"rootfs":{{"type":"layers","diff_ids":[]}}}}"#
    );
    registry.push_image(repository, tag, config.as_bytes(), content.as_bytes())
}

/// `rest` (`shop/web:1.4.2`) in `registry`.
fn reference_in(registry: &Registry, rest: &str) -> ImageReference {
    ImageReference::parse(&format!("{}/{rest}", registry.host())).unwrap_or_else(|e| panic!("{e}"))
}

/// A resolver reaching `registry` over plain HTTP, with `credentials`, on `clock`.
fn resolver_for(registry: &Registry, credentials: CredentialSet, clock: Clock) -> ImageResolver {
    ImageResolver::with_clock(credentials, vec![registry.host()], TTL, clock)
}

/// A clock the check moves by hand, and the means to move it.
fn manual_clock() -> (Clock, Arc<Mutex<Duration>>) {
    let start = Instant::now();
    let elapsed = Arc::new(Mutex::new(Duration::ZERO));
    let read = elapsed.clone();
    let clock: Clock = Arc::new(move || {
        start
            + *read
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
    });
    (clock, elapsed)
}

fn resolved(result: Result<weft_source::images::Resolved, ImageError>) -> String {
    result.unwrap_or_else(|e| panic!("{e}")).digest
}

fn a_tag_resolves_to_the_pushed_manifests_digest_and_an_index_to_its_own(binary: &Path) {
    let registry = Registry::start(binary, None);
    let web = push_image(&registry, "shop/web", Some("1.4.2"), "amd64", "web 1.4.2");
    let resolver = resolver_for(&registry, CredentialSet::default(), manual_clock().0);

    let reference = reference_in(&registry, "shop/web:1.4.2");
    let answer = resolver
        .resolve(&reference, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.digest, web);
    assert_eq!(answer.media_type.as_deref(), Some(OCI_MANIFEST));
    assert_eq!(
        answer.pinned,
        format!("{}/shop/web:1.4.2@{web}", registry.host())
    );
    assert!(!answer.cached);
    assert!(resolver.resolve(&reference, None).is_ok_and(|r| r.cached));

    // A multi-platform image: two platform manifests by digest, an index referencing both under a tag.
    let amd64 = push_image(&registry, "shop/multi", None, "amd64", "amd64 layer");
    let arm64 = push_image(&registry, "shop/multi", None, "arm64", "arm64 layer");
    let index_digest = registry.push_index("shop/multi", "2.0", &[&amd64, &arm64]);
    let multi = resolver
        .resolve(&reference_in(&registry, "shop/multi:2.0"), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        multi.digest, index_digest,
        "the index's digest, never a platform's"
    );
    assert_ne!(multi.digest, amd64);
    assert_ne!(multi.digest, arm64);
    assert_eq!(multi.media_type.as_deref(), Some(OCI_INDEX));

    // A reference by digest is answered as written.
    let by_digest = reference_in(&registry, &format!("shop/multi@{amd64}"));
    assert_eq!(resolved(resolver.resolve(&by_digest, None)), amd64);
}

fn a_moved_tag_shows_in_a_fresh_resolution_and_the_cache_keeps_the_old_digest_until_then(
    binary: &Path,
) {
    let registry = Registry::start(binary, None);
    let first = push_image(&registry, "shop/web", Some("stable"), "amd64", "first");
    let (clock, elapsed) = manual_clock();
    let resolver = resolver_for(&registry, CredentialSet::default(), clock);
    let stable = reference_in(&registry, "shop/web:stable");
    assert_eq!(resolved(resolver.resolve(&stable, None)), first);

    let second = push_image(&registry, "shop/web", Some("stable"), "amd64", "second");
    assert_ne!(first, second);
    let cached = resolver
        .resolve(&stable, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (cached.digest.as_str(), cached.cached),
        (first.as_str(), true),
        "within the lifetime the cache keeps the old digest"
    );
    assert_eq!(
        resolved(resolver.resolve_fresh(&stable, None)),
        second,
        "a fresh resolution sees the move"
    );
    let refreshed = resolver
        .resolve(&stable, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (refreshed.digest.as_str(), refreshed.cached),
        (second.as_str(), true),
        "the fresh answer is what the cache holds next"
    );

    *elapsed
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) += TTL;
    let expired = resolver
        .resolve(&stable, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (expired.digest.as_str(), expired.cached),
        (second.as_str(), false),
        "once expired the registry is asked again"
    );
}

fn a_deleted_manifest_is_a_missing_tag_naming_the_reference(binary: &Path) {
    let registry = Registry::start(binary, None);
    let doomed = push_image(&registry, "shop/web", Some("1.4.2"), "amd64", "doomed");
    let resolver = resolver_for(&registry, CredentialSet::default(), manual_clock().0);
    let reference = reference_in(&registry, "shop/web:1.4.2");
    assert_eq!(resolved(resolver.resolve_fresh(&reference, None)), doomed);

    registry.delete_manifest("shop/web", &doomed);
    let error = resolver
        .resolve_fresh(&reference, None)
        .expect_err("the tag is gone");
    assert_eq!(
        error.to_string(),
        format!("{}/shop/web:1.4.2: no such tag", registry.host())
    );
    assert!(matches!(error, ImageError::NotFound { .. }));
    let never_pushed = resolver
        .resolve(&reference_in(&registry, "shop/web:9.9.9"), None)
        .expect_err("never pushed");
    assert!(matches!(never_pushed, ImageError::NotFound { .. }));
    let no_repository = resolver
        .resolve(&reference_in(&registry, "shop/nothing"), None)
        .expect_err("no such repository");
    assert_eq!(
        no_repository.to_string(),
        format!("{}/shop/nothing:latest: no such tag", registry.host())
    );
}

fn with_htpasswd_only_the_operators_credential_resolves(binary: &Path) {
    let (user, password) = ("ci", "s3cr3t-pw");
    let registry = Registry::start(binary, Some((user, password)));
    let web = push_image(&registry, "shop/web", Some("1.4.2"), "amd64", "private");
    let reference = reference_in(&registry, "shop/web:1.4.2");

    let anonymous = resolver_for(&registry, CredentialSet::default(), manual_clock().0)
        .resolve(&reference, None)
        .expect_err("refused without credentials");
    assert!(
        matches!(
            anonymous,
            ImageError::Unauthorized {
                status: 401,
                with_credential: false,
                ..
            }
        ),
        "{anonymous}"
    );

    let secrets = tempfile::tempdir().expect("tempdir");
    let credential = |name: &str, password: &str, orgs: &[&str]| {
        let file: PathBuf = secrets.path().join(name);
        std::fs::write(&file, format!("{password}\n")).expect("password file");
        CredentialSpec {
            name: name.into(),
            url: format!("oci://{}/shop/", registry.host()),
            username: Some(user.into()),
            password_env: None,
            password_file: Some(file),
            ssh_key: None,
            orgs: orgs.iter().map(|o| o.to_string()).collect(),
        }
    };
    let operator = resolver_for(
        &registry,
        CredentialSet::new(vec![credential("shop", password, &["acme"])]),
        manual_clock().0,
    );
    assert_eq!(resolved(operator.resolve(&reference, Some("acme"))), web);
    let other_org = operator
        .resolve(&reference, Some("globex"))
        .expect_err("another org may not use acme's credential");
    assert!(
        matches!(
            other_org,
            ImageError::Unauthorized {
                with_credential: false,
                ..
            }
        ),
        "{other_org}"
    );

    let wrong = resolver_for(
        &registry,
        CredentialSet::new(vec![credential("wrong", "not-the-password", &[])]),
        manual_clock().0,
    )
    .resolve(&reference, None)
    .expect_err("refused with the wrong password");
    assert!(
        matches!(
            wrong,
            ImageError::Unauthorized {
                status: 401,
                with_credential: true,
                ..
            }
        ),
        "{wrong}"
    );
}
