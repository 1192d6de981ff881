//! The image resolver against the real CNCF distribution registry (`docker-registry`), on a free loopback port over
//! plain HTTP: images are pushed through the OCI distribution API (blobs by monolithic upload, manifests and an
//! index by tag), then resolved; a moved tag, a deleted manifest and htpasswd authentication are checked too.
//! Without the registry the checks are reported ignored, and under CI (`CI=true`) they fail.

use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::Digest;
use weft_source::images::{Clock, ImageError, ImageReference, ImageResolver};
use weft_source::{CredentialSet, CredentialSpec};
use weft_test_reference::{Failed, Reference};

const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
/// Long enough that nothing expires during a check on a loaded machine unless the check moves the clock.
const TTL: Duration = Duration::from_secs(3600);

fn main() -> ExitCode {
    let registry = Reference::command(
        "docker-registry",
        &["/usr/bin/docker-registry"],
        &["--version"],
        "apt-get install docker-registry (the CNCF distribution registry)",
    );
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
            "a_moved_tag_shows_in_a_fresh_resolution_while_the_cache_keeps_the_old_digest",
            a_moved_tag_shows_in_a_fresh_resolution_while_the_cache_keeps_the_old_digest,
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

/// A login for the registry.
#[derive(Clone)]
struct Login {
    user: String,
    password: String,
}

/// A distribution registry on a free loopback port, serving plain HTTP from a temporary directory, deletes
/// enabled, optionally behind htpasswd; stopped on drop.
struct Registry {
    process: std::process::Child,
    address: String,
    login: Option<Login>,
    agent: ureq::Agent,
    directory: tempfile::TempDir,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Registry {
    fn start(binary: &Path, login: Option<Login>) -> Registry {
        let directory = tempfile::tempdir().expect("tempdir");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let address = format!("127.0.0.1:{port}");
        let mut config = format!(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    \
             rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: {address}\n",
            directory.path().join("data").display()
        );
        if let Some(login) = &login {
            let hash = bcrypt::hash(&login.password, 4).expect("a bcrypt hash");
            let htpasswd = directory.path().join("htpasswd");
            std::fs::write(&htpasswd, format!("{}:{hash}\n", login.user)).expect("htpasswd");
            config.push_str(&format!(
                "auth:\n  htpasswd:\n    realm: weft-test\n    path: {}\n",
                htpasswd.display()
            ));
        }
        let config_file = directory.path().join("config.yml");
        std::fs::write(&config_file, config).expect("config");
        let log = std::fs::File::create(directory.path().join("registry.log")).expect("log file");
        let process = std::process::Command::new(binary)
            .arg("serve")
            .arg(&config_file)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("the registry starts");
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .http_status_as_error(false)
            .build()
            .into();
        let mut registry = Registry {
            process,
            address,
            login,
            agent,
            directory,
        };
        registry.wait_until_ready();
        registry
    }

    /// Waits for `/v2/` to answer (401 included, under htpasswd); bounded generously, only to catch a registry
    /// that never comes up.
    fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let url = format!("http://{}/v2/", self.address);
        loop {
            if let Ok(response) = self.agent.get(&url).call()
                && matches!(response.status().as_u16(), 200 | 401)
            {
                return;
            }
            if let Ok(Some(status)) = self.process.try_wait() {
                panic!("the registry exited ({status}): {}", self.log());
            }
            assert!(
                Instant::now() < deadline,
                "the registry did not answer {url} within 120 s: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.directory.path().join("registry.log")).unwrap_or_default()
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    fn authorized<B>(&self, request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        match &self.login {
            Some(login) => {
                use base64::Engine;
                let token = base64::engine::general_purpose::STANDARD
                    .encode(format!("{}:{}", login.user, login.password));
                request.header("Authorization", format!("Basic {token}"))
            }
            None => request,
        }
    }

    /// Uploads a blob to `repository` (monolithic: POST for an upload, PUT with the digest); its digest.
    fn push_blob(&self, repository: &str, bytes: &[u8]) -> String {
        let digest = digest_of(bytes);
        let started = self
            .authorized(
                self.agent
                    .post(self.url(&format!("/v2/{repository}/blobs/uploads/"))),
            )
            .send_empty()
            .expect("upload started");
        assert_eq!(started.status().as_u16(), 202, "starting an upload");
        let location = started
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .expect("the upload's location")
            .to_string();
        let location = if location.starts_with("http") {
            location
        } else {
            self.url(&location)
        };
        let separator = if location.contains('?') { '&' } else { '?' };
        let finished = self
            .authorized(
                self.agent
                    .put(format!("{location}{separator}digest={digest}"))
                    .header("Content-Type", "application/octet-stream"),
            )
            .send(bytes)
            .expect("upload finished");
        assert_eq!(finished.status().as_u16(), 201, "finishing an upload");
        digest
    }

    /// Puts a manifest under `reference` (a tag or a digest); the digest the registry gives it.
    fn push_manifest(
        &self,
        repository: &str,
        reference: &str,
        media_type: &str,
        manifest: &[u8],
    ) -> String {
        let mut response = self
            .authorized(
                self.agent
                    .put(self.url(&format!("/v2/{repository}/manifests/{reference}")))
                    .header("Content-Type", media_type),
            )
            .send(manifest)
            .expect("manifest pushed");
        let status = response.status().as_u16();
        assert_eq!(
            status,
            201,
            "pushing a manifest: {}",
            response.body_mut().read_to_string().unwrap_or_default()
        );
        let digest = response
            .headers()
            .get("docker-content-digest")
            .and_then(|v| v.to_str().ok())
            .expect("the manifest's digest")
            .to_string();
        assert_eq!(
            digest,
            digest_of(manifest),
            "a manifest's digest is its bytes'"
        );
        digest
    }

    /// Pushes a one-layer image whose layer holds `content`, tagged `tag` (or by digest alone when `None`); the
    /// manifest's digest and size.
    fn push_image(&self, repository: &str, tag: Option<&str>, content: &str) -> (String, usize) {
        let config = format!(
            r#"{{"architecture":"amd64","os":"linux","config":{{"Labels":{{"content":"{content}"}}}},"rootfs":{{"type":"layers","diff_ids":[]}}}}"#
        );
        let config_digest = self.push_blob(repository, config.as_bytes());
        let layer_digest = self.push_blob(repository, content.as_bytes());
        let manifest = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": config_digest,
                "size": config.len(),
            },
            "layers": [{
                "mediaType": "application/vnd.oci.image.layer.v1.tar",
                "digest": layer_digest,
                "size": content.len(),
            }],
        })
        .to_string();
        let digest = digest_of(manifest.as_bytes());
        let reference = tag.unwrap_or(&digest).to_string();
        let pushed = self.push_manifest(repository, &reference, OCI_MANIFEST, manifest.as_bytes());
        (pushed, manifest.len())
    }

    /// Deletes the manifest with `digest`.
    fn delete_manifest(&self, repository: &str, digest: &str) {
        let response = self
            .authorized(
                self.agent
                    .delete(self.url(&format!("/v2/{repository}/manifests/{digest}"))),
            )
            .call()
            .expect("manifest deleted");
        assert_eq!(response.status().as_u16(), 202, "deleting a manifest");
    }

    fn reference(&self, rest: &str) -> ImageReference {
        ImageReference::parse(&format!("{}/{rest}", self.address)).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A resolver reaching this registry over plain HTTP, with `credentials`, on `clock`.
    fn resolver(&self, credentials: CredentialSet, clock: Clock) -> ImageResolver {
        ImageResolver::with_clock(credentials, vec![self.address.clone()], TTL, clock)
    }
}

fn digest_of(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
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
    let (web, _) = registry.push_image("shop/web", Some("1.4.2"), "web 1.4.2");
    let resolver = registry.resolver(CredentialSet::default(), manual_clock().0);

    let reference = registry.reference("shop/web:1.4.2");
    let answer = resolver
        .resolve(&reference, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.digest, web);
    assert_eq!(answer.media_type.as_deref(), Some(OCI_MANIFEST));
    assert_eq!(
        answer.pinned,
        format!("{}/shop/web:1.4.2@{web}", registry.address)
    );
    assert!(!answer.cached);
    assert!(resolver.resolve(&reference, None).is_ok_and(|r| r.cached));

    // A multi-platform image: two platform manifests by digest, an index referencing both under a tag.
    let (amd64, amd64_size) = registry.push_image("shop/multi", None, "amd64 layer");
    let (arm64, arm64_size) = registry.push_image("shop/multi", None, "arm64 layer");
    let index = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [
            {"mediaType": OCI_MANIFEST, "digest": amd64, "size": amd64_size,
             "platform": {"architecture": "amd64", "os": "linux"}},
            {"mediaType": OCI_MANIFEST, "digest": arm64, "size": arm64_size,
             "platform": {"architecture": "arm64", "os": "linux"}},
        ],
    })
    .to_string();
    let index_digest = registry.push_manifest("shop/multi", "2.0", OCI_INDEX, index.as_bytes());
    let multi = resolver
        .resolve(&registry.reference("shop/multi:2.0"), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        multi.digest, index_digest,
        "the index's digest, never a platform's"
    );
    assert_ne!(multi.digest, amd64);
    assert_ne!(multi.digest, arm64);
    assert_eq!(multi.media_type.as_deref(), Some(OCI_INDEX));

    // A reference by digest is answered as written.
    let by_digest = registry.reference(&format!("shop/multi@{amd64}"));
    assert_eq!(resolved(resolver.resolve(&by_digest, None)), amd64);
}

fn a_moved_tag_shows_in_a_fresh_resolution_while_the_cache_keeps_the_old_digest(binary: &Path) {
    let registry = Registry::start(binary, None);
    let (first, _) = registry.push_image("shop/web", Some("stable"), "first");
    let (clock, elapsed) = manual_clock();
    let resolver = registry.resolver(CredentialSet::default(), clock);
    let stable = registry.reference("shop/web:stable");
    assert_eq!(resolved(resolver.resolve(&stable, None)), first);

    let (second, _) = registry.push_image("shop/web", Some("stable"), "second");
    assert_ne!(first, second);
    assert_eq!(
        resolved(resolver.resolve_fresh(&stable, None)),
        second,
        "a fresh resolution sees the move"
    );
    let cached = resolver
        .resolve(&stable, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (cached.digest.as_str(), cached.cached),
        (first.as_str(), true),
        "within the lifetime the cache keeps the old digest"
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
    let (doomed, _) = registry.push_image("shop/web", Some("1.4.2"), "doomed");
    let resolver = registry.resolver(CredentialSet::default(), manual_clock().0);
    let reference = registry.reference("shop/web:1.4.2");
    assert_eq!(resolved(resolver.resolve_fresh(&reference, None)), doomed);

    registry.delete_manifest("shop/web", &doomed);
    let error = resolver
        .resolve_fresh(&reference, None)
        .expect_err("the tag is gone");
    assert_eq!(
        error.to_string(),
        format!("{}/shop/web:1.4.2: no such tag", registry.address)
    );
    assert!(matches!(error, ImageError::NotFound { .. }));
    let never_pushed = resolver
        .resolve(&registry.reference("shop/web:9.9.9"), None)
        .expect_err("never pushed");
    assert!(matches!(never_pushed, ImageError::NotFound { .. }));
    let no_repository = resolver
        .resolve(&registry.reference("shop/nothing"), None)
        .expect_err("no such repository");
    assert_eq!(
        no_repository.to_string(),
        format!("{}/shop/nothing:latest: no such tag", registry.address)
    );
}

fn with_htpasswd_only_the_operators_credential_resolves(binary: &Path) {
    let login = Login {
        user: "ci".into(),
        password: "s3cr3t-pw".into(),
    };
    let registry = Registry::start(binary, Some(login.clone()));
    let (web, _) = registry.push_image("shop/web", Some("1.4.2"), "private");
    let reference = registry.reference("shop/web:1.4.2");

    let anonymous = registry
        .resolver(CredentialSet::default(), manual_clock().0)
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
            url: format!("oci://{}/shop/", registry.address),
            username: Some(login.user.clone()),
            password_env: None,
            password_file: Some(file),
            ssh_key: None,
            orgs: orgs.iter().map(|o| o.to_string()).collect(),
        }
    };
    let operator = registry.resolver(
        CredentialSet::new(vec![credential("shop", &login.password, &["acme"])]),
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

    let wrong = registry
        .resolver(
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
