//! Every outbound request a tenant can cause goes through one guard: in a running server, chart dependencies an
//! org's Application names and chart repositories an admin's API app names on the server's own network, in every
//! spelling (an address, a decimal number, IPv6 loopback, `localhost`, OCI), are never contacted; a listed plain-HTTP
//! host is, and its redirect to an unlisted host is not followed; a dependency outside the org's `source_repos` is
//! refused before the guard is asked. Listeners on loopback count the connections they accept, so "never
//! contacted" is a count of 0 rather than an error message's word.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use http::{Method, StatusCode};
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::json;
use tempfile::TempDir;
use weft_applications::crd;
use weft_tests::GitRepo;

use crate::applications::call_as;
use crate::serve::{cluster, config, eventually, options};

const ADMIN: &str = "weft_outbound_admin_token_0000000000000000000000";

/// A loopback listener counting the connections it accepts; each request is answered with a redirect to
/// `redirect` + the request's path when given, else the connection is closed at once.
struct Counting {
    address: SocketAddr,
    accepted: Arc<AtomicUsize>,
}

impl Counting {
    fn start(bind: &str, redirect: Option<String>) -> Counting {
        let listener = TcpListener::bind(bind).unwrap();
        let address = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                count.fetch_add(1, Ordering::SeqCst);
                let Some(to) = &redirect else {
                    continue;
                };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                let _ = reader.read_line(&mut request_line);
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                    header.clear();
                }
                let path = request_line.split(' ').nth(1).unwrap_or("/").to_string();
                let answer = format!(
                    "HTTP/1.1 302 Found\r\nLocation: {to}{path}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Counting { address, accepted }
    }

    fn count(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

fn hash(token: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}

/// A chart taking its one dependency, `worker`, from `repository`.
fn chart(repository: &str) -> String {
    format!(
        "apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n\
         - {{name: worker, version: 1.0.0, repository: \"{repository}\"}}\n"
    )
}

fn application(namespace: &str, name: &str, repo: &GitRepo, path: &str) -> DynamicObject {
    let destination = format!("{}-{name}", namespace.trim_end_matches("-apps"));
    crate::applications::application_of_type("helm", name, namespace, repo, path, &destination)
}

/// What the server says of an app that cannot be rendered (its GitOps view's error), once it says something.
async fn error_of(router: &axum::Router, app: &str) -> String {
    eventually(&format!("{app}'s error"), 300, async || {
        let (code, view) = call_as(
            router,
            Method::GET,
            &format!("/v1/deploy/gitops/{app}"),
            ADMIN,
            None,
        )
        .await;
        if code != StatusCode::OK {
            return None;
        }
        view["error"].as_str().map(str::to_string)
    })
    .await
}

/// A refusal says what was asked for and why, and nothing the network answered.
fn assert_refused(app: &str, error: &str, expected: &str) {
    assert!(error.contains(expected), "{app}: {error}");
    for detail in [
        "onnection refused",
        "reset",
        "HTTP 404",
        "HTTP 302",
        "os error",
        "timed out",
    ] {
        assert!(!error.contains(detail), "{app}: {error}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_a_tenant_or_an_admin_names_on_the_servers_own_network_is_contacted_and_a_listed_host_is()
 {
    // Hosts of the server's own network, as a tenant would name them: nothing here is listed.
    let unlisted_v4 = Counting::start("127.0.0.1:0", None);
    let unlisted_v6 = Counting::start("[::1]:0", None);
    // The target of a listed host's redirect: not listed either.
    let redirected_to = Counting::start("127.0.0.1:0", None);
    // A plain-HTTP chart mirror the operator lists, which redirects everything to the unlisted host.
    let listed = Counting::start(
        "127.0.0.1:0",
        Some(format!("http://{}", redirected_to.address)),
    );
    // Another listed mirror, outside the strict org's source_repos.
    let outside_the_org = Counting::start("127.0.0.1:0", None);
    let (port, v6_port) = (unlisted_v4.address.port(), unlisted_v6.address.port());

    let tenant_dependencies = [
        ("dep-https", format!("https://127.0.0.1:{port}/charts")),
        ("dep-oci", format!("oci://127.0.0.1:{port}/charts")),
        ("dep-v6", format!("http://[::1]:{v6_port}/charts")),
        ("dep-decimal", format!("http://2130706433:{port}/charts")),
        ("dep-localhost", format!("http://localhost:{port}/charts")),
        ("dep-redirect", format!("http://{}/charts", listed.address)),
    ];
    let repo = GitRepo::new();
    let mut files: Vec<(String, String)> = tenant_dependencies
        .iter()
        .map(|(dir, url)| (format!("{dir}/Chart.yaml"), chart(url)))
        .collect();
    files.push((
        "dep-outside/Chart.yaml".into(),
        chart(&format!("http://{}/charts", outside_the_org.address)),
    ));
    let files: Vec<(&str, String)> = files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
    repo.commit(&files);

    let cluster = cluster();
    let data = TempDir::new().unwrap();
    let extra = format!(
        "[applications]\nenabled = true\ninstall_crd = true\n\
         [[org]]\nname = \"shop\"\nnamespaces = [\"shop-apps\"]\ndestinations = [\"shop-*\"]\nsource_repos = [\"*\"]\n\
         [[org]]\nname = \"strict\"\nnamespaces = [\"strict-apps\"]\ndestinations = [\"strict-*\"]\nsource_repos = [\"file://*\"]\n\
         [sources]\nallow_file_urls = true\n\
         [outbound]\nplain_http_hosts = [\"{}\", \"{}\"]\n\
         [auth]\ntokens = [{{ sha256 = \"{}\", principal = \"admin\", name = \"admin\" }}]\n",
        listed.address,
        outside_the_org.address,
        hash(ADMIN)
    );
    let config = config(&cluster, data.path(), "", &extra);
    let (server, state) = weft_tests::serve_api(&config, options("a")).await;
    let router = weft_engine::api::router(state);

    // An org's Applications, each a chart whose one dependency is on the server's own network.
    let shop: Api<DynamicObject> =
        Api::namespaced_with(cluster.client.clone(), "shop-apps", &crd::api_resource());
    let strict: Api<DynamicObject> =
        Api::namespaced_with(cluster.client.clone(), "strict-apps", &crd::api_resource());
    eventually("the Application definition is served", 300, async || {
        shop.list(&Default::default()).await.ok()
    })
    .await;
    for name in ["shop-apps", "strict-apps"] {
        crate::applications::ensure_namespace(&cluster, name).await;
    }
    for (dir, _) in &tenant_dependencies {
        shop.create(
            &PostParams::default(),
            &application("shop-apps", dir, &repo, &format!("app/{dir}")),
        )
        .await
        .unwrap();
    }
    strict
        .create(
            &PostParams::default(),
            &application("strict-apps", "dep-outside", &repo, "app/dep-outside"),
        )
        .await
        .unwrap();

    // An admin's API apps whose chart repository is on the server's own network.
    let admin_repositories = [
        ("api-https", format!("https://127.0.0.1:{port}/charts")),
        ("api-oci", format!("oci://127.0.0.1:{port}/charts")),
        ("api-v6", format!("https://[::1]:{v6_port}/charts")),
        ("api-decimal", format!("https://2130706433:{port}/charts")),
        ("api-localhost", format!("https://localhost:{port}/charts")),
    ];
    for (name, repository) in &admin_repositories {
        let (code, body) = call_as(
            &router,
            Method::POST,
            "/v1/deploy/applications",
            ADMIN,
            Some(
                json!({"name": name, "type": "helm", "namespace": name, "org": "shop",
                        "source": {"repo": repository, "chart": "worker", "version": "1.0.0"}}),
            ),
        )
        .await;
        assert!(code.is_success(), "{name}: {code} {body}");
    }

    // Each is refused with one message naming what it asked for; none of them reached a listener.
    for (name, url) in &tenant_dependencies[..5] {
        let error = error_of(&router, name).await;
        // Over plain HTTP the host would need listing for it.
        let list = if url.starts_with("http://") {
            "plain_http_hosts"
        } else {
            "allowed_hosts"
        };
        assert_refused(
            name,
            &error,
            &format!(
                "chart repository {url} is not allowed: it is on the server's own network (an operator can list \
                 the host in [outbound] {list})"
            ),
        );
    }
    for (name, url) in &admin_repositories {
        let error = error_of(&router, name).await;
        assert_refused(
            name,
            &error,
            &format!("chart repository {url} is not allowed: it is on the server's own network"),
        );
    }
    // The listed host is asked (the control: a listed host is contacted), and its redirect is not followed.
    let error = error_of(&router, "dep-redirect").await;
    assert_refused(
        "dep-redirect",
        &error,
        &format!(
            "chart repository http://{}/charts is not allowed: it sends Weft on to a host on the server's own \
             network",
            listed.address
        ),
    );
    assert!(
        !error.contains(&redirected_to.address.to_string()),
        "the redirect's target is not shown: {error}"
    );
    // The strict org may not name the mirror, listed or not: refused by its source_repos before anything is sent.
    let error = error_of(&router, "dep-outside").await;
    assert_refused(
        "dep-outside",
        &error,
        "which this app may not name: org strict may not take sources from it (allowed: file://*)",
    );
    // The Application's own status says it too.
    let status = eventually("dep-https's status names the refusal", 300, async || {
        let object = shop.get("dep-https").await.ok()?;
        let status = object.data.get("status")?.to_string();
        status.contains("is not allowed").then_some(status)
    })
    .await;
    assert!(!status.contains("onnection refused"), "{status}");

    assert!(listed.count() > 0, "the listed host was contacted");
    assert_eq!(unlisted_v4.count(), 0, "127.0.0.1 was contacted");
    assert_eq!(unlisted_v6.count(), 0, "[::1] was contacted");
    assert_eq!(redirected_to.count(), 0, "the redirect was followed");
    assert_eq!(outside_the_org.count(), 0, "the org's rule was passed");
    let apps = server.state.apps.read().await;
    assert!(
        tenant_dependencies.iter().all(|(name, _)| apps
            .get(*name)
            .is_some_and(|app| app.org.as_deref() == Some("shop"))),
        "the Applications run as their namespace's org"
    );
    drop(apps);
    server.shutdown().await;
}

/// The operator's lists are the guard's: a host listed in `[outbound] allowed_hosts` (or the older
/// `[images] private_hosts`) is called although it is on the server's own network, so the refusal above is the
/// guard's and not the network's.
#[tokio::test(flavor = "multi_thread")]
async fn a_chart_repository_on_a_host_the_operator_lists_is_contacted() {
    use weft_source::charts::Wanted;
    let listed = Counting::start("127.0.0.1:0", None);
    let aliased = Counting::start("127.0.0.1:0", None);
    let data = TempDir::new().unwrap();
    let text = format!(
        "data_dir = \"{}\"\n[outbound]\nallowed_hosts = [\"{}\"]\n[images]\nprivate_hosts = [\"{}\"]\n",
        data.path().display(),
        listed.address,
        aliased.address
    );
    let config =
        weft_engine::config::Config::parse(&text, std::path::Path::new("test.toml"), data.path())
            .unwrap();
    let repositories = config.chart_repositories();
    for (counting, repository) in [
        (&listed, format!("https://{}/charts", listed.address)),
        (&aliased, format!("oci://{}/charts", aliased.address)),
        (
            &listed,
            format!("https://localhost:{}/charts", listed.address.port()),
        ),
    ] {
        let wanted = Wanted {
            name: "worker".into(),
            repository: repository.clone(),
            version: "1.0.0".into(),
            locked: true,
        };
        let before = counting.count();
        let repositories = repositories.clone();
        let error = tokio::task::spawn_blocking(move || repositories.fetch(&wanted, None))
            .await
            .unwrap()
            .expect_err("the listener speaks no TLS");
        let error = error.to_string();
        if repository.contains("localhost") {
            // Another spelling of a listed address is not the listed host.
            assert!(error.contains("is not allowed"), "{error}");
            assert_eq!(counting.count(), before);
        } else {
            assert!(!error.contains("is not allowed"), "{repository}: {error}");
            assert!(counting.count() > before, "{repository} was contacted");
        }
    }
    let bad = format!(
        "data_dir = \"{}\"\n[outbound]\nallowed_hosts = [\"http://registry.internal\"]\n",
        data.path().display()
    );
    let error =
        weft_engine::config::Config::parse(&bad, std::path::Path::new("test.toml"), data.path())
            .unwrap_err()
            .to_string();
    assert!(error.contains("outbound.allowed_hosts"), "{error}");
}
