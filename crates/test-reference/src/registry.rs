//! A throwaway CNCF distribution registry (`docker-registry`) for tests: plain HTTP on a free loopback port, its
//! storage in a temporary directory, deletes enabled, optionally behind htpasswd; images are pushed through the
//! OCI distribution API (blobs by monolithic upload, manifests and indexes by tag or digest). Stopped on drop.
//!
//! For tests only: every failure panics with what went wrong (and the registry's log when it does not start).
//! Find the binary with [`Reference::docker_registry`](crate::Reference::docker_registry), so a check without it is
//! reported skipped, or failed under CI.

use std::fmt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sha2::Digest as _;

/// How to get the registry when it is missing.
pub const REGISTRY_INSTALL: &str =
    "apt-get install docker-registry (the CNCF distribution registry)";
/// An OCI image manifest's media type.
pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
/// An OCI image index's media type (a multi-platform image).
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
/// An OCI image config's media type.
pub const OCI_CONFIG: &str = "application/vnd.oci.image.config.v1+json";
/// An uncompressed OCI layer's media type.
pub const OCI_LAYER: &str = "application/vnd.oci.image.layer.v1.tar";

/// How long the registry gets to answer `/v2/` after it starts; generous, only to catch one that never comes up.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// A distribution registry for a test, stopped (killed) on drop.
pub struct Registry {
    process: Child,
    host: String,
    login: Option<(String, String)>,
    agent: ureq::Agent,
    directory: tempfile::TempDir,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("host", &self.host)
            .field("user", &self.login.as_ref().map(|(user, _)| user))
            .field("directory", &self.directory.path())
            .finish_non_exhaustive()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Registry {
    /// Starts `binary` (`docker-registry`) on a free loopback port, requiring `auth` (user, password) through
    /// htpasswd when given, and waits until it answers `/v2/`.
    pub fn start(binary: &Path, auth: Option<(&str, &str)>) -> Registry {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let host = format!("127.0.0.1:{port}");
        let mut config = format!(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    \
             rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: {host}\n",
            directory.path().join("data").display()
        );
        if let Some((user, password)) = auth {
            let file = directory.path().join("htpasswd");
            std::fs::write(&file, htpasswd(user, password)).expect("writing htpasswd");
            config.push_str(&format!(
                "auth:\n  htpasswd:\n    realm: weft-test\n    path: {}\n",
                file.display()
            ));
        }
        let config_file = directory.path().join("config.yml");
        std::fs::write(&config_file, config).expect("writing the registry's config");
        let log = std::fs::File::create(directory.path().join("registry.log"))
            .expect("the registry's log file");
        let process = Command::new(binary)
            .arg("serve")
            .arg(&config_file)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", binary.display()));
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .http_status_as_error(false)
            .build()
            .into();
        let mut registry = Registry {
            process,
            host,
            login: auth.map(|(user, password)| (user.to_string(), password.to_string())),
            agent,
            directory,
        };
        registry.wait_until_ready();
        registry
    }

    /// Where it listens: `127.0.0.1:PORT`, the registry part of its images' references.
    pub fn host(&self) -> String {
        self.host.clone()
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.host)
    }

    /// What the registry logged (errors only), for a failure's message.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.directory.path().join("registry.log")).unwrap_or_default()
    }

    /// Uploads a blob to `repository` (monolithic: POST for an upload, PUT with the digest); its digest.
    pub fn push_blob(&self, repository: &str, bytes: &[u8]) -> String {
        let digest = digest_of(bytes);
        let started = self
            .authorized(
                self.agent
                    .post(self.url(&format!("/v2/{repository}/blobs/uploads/"))),
            )
            .send_empty()
            .expect("starting an upload");
        assert_eq!(started.status().as_u16(), 202, "starting an upload");
        let location = header(&started, "location").expect("the upload's location");
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
            .expect("finishing an upload");
        assert_eq!(finished.status().as_u16(), 201, "finishing an upload");
        digest
    }

    /// Puts `manifest` (of `media_type`) under `reference`, a tag or a digest; the digest the registry gives it,
    /// checked to be its bytes'.
    pub fn push_manifest(
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
            .expect("pushing a manifest");
        assert_eq!(
            response.status().as_u16(),
            201,
            "pushing a manifest: {}",
            response.body_mut().read_to_string().unwrap_or_default()
        );
        let digest = header(&response, "docker-content-digest").expect("the manifest's digest");
        assert_eq!(
            digest,
            digest_of(manifest),
            "a manifest's digest is its bytes'"
        );
        digest
    }

    /// Pushes a one-layer image, `config` and `layer` as its blobs, tagged `tag` (or by digest alone when
    /// `None`); the digest of its OCI manifest.
    pub fn push_image(
        &self,
        repository: &str,
        tag: Option<&str>,
        config: &[u8],
        layer: &[u8],
    ) -> String {
        let config_digest = self.push_blob(repository, config);
        let layer_digest = self.push_blob(repository, layer);
        let manifest = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": {"mediaType": OCI_CONFIG, "digest": config_digest, "size": config.len()},
            "layers": [{"mediaType": OCI_LAYER, "digest": layer_digest, "size": layer.len()}],
        })
        .to_string();
        let digest = digest_of(manifest.as_bytes());
        self.push_manifest(
            repository,
            tag.unwrap_or(&digest),
            OCI_MANIFEST,
            manifest.as_bytes(),
        )
    }

    /// Pushes an OCI index (a multi-platform image) of `manifests`, digests of manifests already in `repository`,
    /// tagged `tag`; its digest. Each entry has the manifest's media type and size as the registry serves it, and
    /// the platform its config names (`architecture`, `os`, `variant`) when it names one.
    pub fn push_index(&self, repository: &str, tag: &str, manifests: &[&str]) -> String {
        let entries: Vec<serde_json::Value> = manifests
            .iter()
            .map(|digest| {
                let (media_type, bytes) = self.get(
                    &format!("/v2/{repository}/manifests/{digest}"),
                    OCI_MANIFEST,
                );
                let mut entry = serde_json::json!({
                    "mediaType": media_type.unwrap_or_else(|| OCI_MANIFEST.to_string()),
                    "digest": digest,
                    "size": bytes.len(),
                });
                if let Some(platform) = self.platform(repository, &bytes) {
                    entry["platform"] = platform;
                }
                entry
            })
            .collect();
        let index = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": OCI_INDEX,
            "manifests": entries,
        })
        .to_string();
        self.push_manifest(repository, tag, OCI_INDEX, index.as_bytes())
    }

    /// The manifest `reference` (a tag or digest) of `repository` as the registry serves it to a client accepting
    /// OCI and Docker manifests: the digest it reports (`Docker-Content-Digest`), the media type and the body.
    pub fn manifest(&self, repository: &str, reference: &str) -> ServedManifest {
        let accept = format!(
            "{OCI_MANIFEST}, {OCI_INDEX}, application/vnd.docker.distribution.manifest.v2+json"
        );
        let path = format!("/v2/{repository}/manifests/{reference}");
        let mut response = self
            .authorized(self.agent.get(self.url(&path)).header("Accept", &accept))
            .call()
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        assert_eq!(response.status().as_u16(), 200, "GET {path}");
        ServedManifest {
            digest: header(&response, "docker-content-digest").unwrap_or_default(),
            media_type: header(&response, "content-type").unwrap_or_default(),
            body: response
                .body_mut()
                .read_to_vec()
                .unwrap_or_else(|e| panic!("GET {path}: {e}")),
        }
    }

    /// Whether `repository` has the tag or digest `reference`.
    pub fn has_manifest(&self, repository: &str, reference: &str) -> bool {
        let path = format!("/v2/{repository}/manifests/{reference}");
        self.authorized(
            self.agent
                .head(self.url(&path))
                .header("Accept", format!("{OCI_MANIFEST}, {OCI_INDEX}")),
        )
        .call()
        .is_ok_and(|response| response.status().as_u16() == 200)
    }

    /// The blob `digest` of `repository`.
    pub fn blob(&self, repository: &str, digest: &str) -> Vec<u8> {
        self.get(
            &format!("/v2/{repository}/blobs/{digest}"),
            "application/octet-stream",
        )
        .1
    }

    /// Deletes the manifest with `digest` from `repository` (its tags go with it).
    pub fn delete_manifest(&self, repository: &str, digest: &str) {
        let response = self
            .authorized(
                self.agent
                    .delete(self.url(&format!("/v2/{repository}/manifests/{digest}"))),
            )
            .call()
            .expect("deleting a manifest");
        assert_eq!(response.status().as_u16(), 202, "deleting a manifest");
    }

    /// Waits for `/v2/` to answer (401 included, under htpasswd).
    fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + START_TIMEOUT;
        let url = self.url("/v2/");
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
                "the registry did not answer {url} within {} s: {}",
                START_TIMEOUT.as_secs(),
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `request` with the login, when the registry has one.
    fn authorized<B>(&self, request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        match &self.login {
            Some((user, password)) => {
                use base64::Engine as _;
                let token =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                request.header("Authorization", format!("Basic {token}"))
            }
            None => request,
        }
    }

    /// GETs `path` accepting `accept`: the content type and the body; panics unless 200.
    fn get(&self, path: &str, accept: &str) -> (Option<String>, Vec<u8>) {
        let mut response = self
            .authorized(self.agent.get(self.url(path)).header("Accept", accept))
            .call()
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        assert_eq!(response.status().as_u16(), 200, "GET {path}");
        let media_type = header(&response, "content-type");
        let body = response
            .body_mut()
            .read_to_vec()
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        (media_type, body)
    }

    /// The platform an image manifest's config names, if it is a manifest with a config naming one.
    fn platform(&self, repository: &str, manifest: &[u8]) -> Option<serde_json::Value> {
        let manifest: serde_json::Value = serde_json::from_slice(manifest).ok()?;
        let config = manifest["config"]["digest"].as_str()?;
        let (_, bytes) = self.get(
            &format!("/v2/{repository}/blobs/{config}"),
            "application/octet-stream",
        );
        let config: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
        let mut platform = serde_json::json!({
            "architecture": config["architecture"].as_str()?,
            "os": config["os"].as_str()?,
        });
        if let Some(variant) = config["variant"].as_str() {
            platform["variant"] = variant.into();
        }
        Some(platform)
    }
}

/// A manifest as the registry served it.
#[derive(Debug, Clone)]
pub struct ServedManifest {
    /// The digest the registry reports for it (`Docker-Content-Digest`).
    pub digest: String,
    /// Its media type (`Content-Type`).
    pub media_type: String,
    /// Its bytes.
    pub body: Vec<u8>,
}

/// `sha256:<hex>` of `bytes`, as the registry names blobs and manifests.
pub fn digest_of(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}

/// An htpasswd line (`user:<bcrypt hash>\n`) letting `user` in with `password`; bcrypt at the lowest cost, for
/// tests.
pub fn htpasswd(user: &str, password: &str) -> String {
    let hash = bcrypt::hash(password, 4).expect("a bcrypt hash");
    format!("{user}:{hash}\n")
}

fn header<B>(response: &ureq::http::Response<B>, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_is_the_sha256_of_the_bytes() {
        assert_eq!(
            digest_of(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn an_htpasswd_line_verifies_the_password_and_no_other() {
        let line = htpasswd("ci", "s3cr3t");
        let hash = line
            .strip_prefix("ci:")
            .and_then(|rest| rest.strip_suffix('\n'))
            .unwrap_or_else(|| panic!("{line:?}"));
        assert!(bcrypt::verify("s3cr3t", hash).unwrap_or(false));
        assert!(!bcrypt::verify("other", hash).unwrap_or(true));
    }
}
