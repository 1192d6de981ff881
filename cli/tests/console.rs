//! The web console in a real browser: Debian's `chromium`, driven over WebDriver by `chromedriver`, against a real
//! `weft serve` on the embedded simulator. Signs in with a token, filters the fleet, opens an app and its tree
//! (Deployment → ReplicaSet → Pods), syncs and watches the operation succeed, rolls back, drifts an object with
//! kubectl and reads its diff, follows logs, trips the prune fuse and confirms, and signs in as a member of another
//! org, who gets "not found" and no write controls. No page may contain a planted Secret value. Screenshots of the
//! main pages go to `target/console-screenshots/`.
//!
//! Without chromium, chromedriver or kubectl the check is reported ignored (and fails under CI).

#[path = "console/provider.rs"]
mod provider;
#[path = "all/support.rs"]
mod support;

use std::ffi::OsStr;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use support::{ServeProcess, free_port, workspace};
use weft_test_reference::{Failed, Reference};

/// How long anything the server does in the background may take on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(300);
/// A value planted in a Secret of an app: no page may show it, plain or base64.
const PLANTED: &str = "planted-secret-value-7f3a9c";

fn main() -> ExitCode {
    let chromium = Reference::command(
        "chromium",
        &["/usr/bin/chromium"],
        &["--version"],
        "apt-get install chromium",
    );
    let driver = Reference::command(
        "chromedriver",
        &["/usr/bin/chromedriver"],
        &["--version"],
        "apt-get install chromium-driver",
    );
    let kubectl = Reference::kubectl();
    // axe-core, the accessibility engine, run in each main page (npm, installed by .ci/run).
    let axe = Reference::node_package("axe-core", &workspace().join("target/references/node"));
    const NAME: &str =
        "the_console_in_a_browser_shows_the_fleet_and_an_app_and_acts_only_as_the_api_allows";
    // The trial runs under the first missing tool (ignored, or failed under CI), or under chromium when all are there.
    let trial = match (chromium.path(), driver.path(), kubectl.path(), axe.path()) {
        (Some(c), Some(d), Some(k), Some(a)) => {
            let (c, d, k) = (c.to_path_buf(), d.to_path_buf(), k.to_path_buf());
            let axe = a.join("node_modules/axe-core/axe.min.js");
            chromium.trial(NAME, move || the_console_in_a_browser(&c, &d, &k, &axe))
        }
        _ => [&chromium, &driver, &kubectl, &axe]
            .into_iter()
            .find(|r| r.path().is_none())
            .unwrap_or(&chromium)
            .trial(NAME, || Ok(())),
    };
    weft_test_reference::run(&[&chromium, &driver, &kubectl, &axe], vec![trial])
}

/// The test's own configuration: the example shop, and `fused`, five ConfigMaps and a Secret in a directory the
/// test edits (prune on, the default fuse: at most 10 deletions and 20% of the objects).
fn write_config(dir: &Path, issuer: &str) -> Result<PathBuf, Failed> {
    support::copy_tree(
        &workspace().join("examples/apps/shop"),
        &dir.join("apps/shop"),
    );
    let fused = dir.join("apps/fused");
    std::fs::create_dir_all(&fused)?;
    for i in 0..5 {
        std::fs::write(
            fused.join(format!("cm-{i}.yaml")),
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setting-{i}\ndata:\n  value: \"{i}\"\n"
            ),
        )?;
    }
    std::fs::write(
        fused.join("secret.yaml"),
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: credentials\nstringData:\n  password: {PLANTED}\n"
        ),
    )?;
    let config = dir.join("weft.toml");
    std::fs::write(
        &config,
        format!(
            r#"data_dir = "{data}"
[images]
pin = false

# Single sign-on through the test's OpenID provider; its ID tokens are checked with the engine's test key.
[[auth.oidc]]
issuer = "{issuer}"
audience = "{client}"
admin_value = "weft-admins"
[[auth.oidc.keys]]
kid = "r1"
algorithm = "RS256"
public_key_pem_file = "{public_key}"
[auth.oidc.console]
client_id = "{client}"
display_name = "Test SSO"
scopes = ["openid", "profile", "groups"]

[defaults.sync]
prune = true
fuse = {{ max_deletions = 10, max_ratio = 0.2 }}

[[app]]
name = "shop"
org = "demo"
env = "main"
role = "storefront"
type = "yaml"
namespace = "shop"
source = {{ path = "apps/shop" }}
[app.sync]
automated = true
self_heal = true
create_namespace = true

[[app]]
name = "broken"
org = "demo"
env = "dev"
type = "yaml"
namespace = "broken"
source = {{ path = "apps/missing" }}

[[app]]
name = "fused"
org = "demo"
env = "test"
type = "yaml"
namespace = "fused"
source = {{ path = "apps/fused" }}
[app.sync]
create_namespace = true
"#,
            data = dir.join("data").display(),
            client = provider::CLIENT_ID,
            public_key = workspace()
                .join("crates/auth/src/testdata/rsa_public.pem")
                .display(),
        ),
    )?;
    Ok(config)
}

/// `weft token create ARGS --config CONFIG`: the token it printed.
fn create_token(config: &Path, args: &[&str]) -> Result<String, Failed> {
    let made = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["token", "create"])
        .args(args)
        .arg("--config")
        .arg(config)
        .output()?;
    if !made.status.success() {
        return Err(format!(
            "weft token create: {}",
            String::from_utf8_lossy(&made.stderr)
        )
        .into());
    }
    Ok(String::from_utf8(made.stdout)?.trim().to_string())
}

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The browser, and every page source it was shown (for the planted-Secret check).
struct Browser {
    client: Client,
    base: String,
    seen: Vec<(String, String)>,
    shots: PathBuf,
    /// axe-core's script.
    axe: String,
    /// What axe-core found, page by page.
    violations: Vec<String>,
}

impl Browser {
    async fn goto(&mut self, path: &str) -> Result<String, Failed> {
        self.client.goto(&format!("{}{path}", self.base)).await?;
        self.source().await
    }

    async fn source(&mut self) -> Result<String, Failed> {
        let source = self.client.source().await?;
        let url = self.client.current_url().await?.to_string();
        self.seen.push((url, source.clone()));
        Ok(source)
    }

    /// A screenshot of the page as `name`.png, and axe-core's check of it (serious and critical violations are
    /// kept for the end).
    async fn shot(&mut self, name: &str) -> Result<(), Failed> {
        let png = self.client.screenshot().await?;
        std::fs::write(self.shots.join(format!("{name}.png")), png)?;
        self.client
            .execute(&format!("{}\nreturn true;", self.axe), vec![])
            .await?;
        let found = self
            .client
            .execute_async(
                "var done = arguments[arguments.length - 1];\
                 axe.run(document, { resultTypes: ['violations'] }).then(function (r) {\
                   done(r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; })\
                     .map(function (v) { return v.id + ' (' + v.impact + '): ' + v.help + ' at ' +\
                       v.nodes.slice(0, 3).map(function (n) { return n.target.join(' '); }).join(', '); }));\
                 }).catch(function (e) { done(['axe-core failed: ' + e]); });",
                vec![],
            )
            .await?;
        let url = self.client.current_url().await?.path().to_string();
        for violation in found.as_array().into_iter().flatten() {
            self.violations.push(format!(
                "{name} ({url}): {}",
                violation.as_str().unwrap_or_default()
            ));
        }
        Ok(())
    }

    async fn path(&self) -> Result<String, Failed> {
        Ok(self.client.current_url().await?.path().to_string())
    }

    /// Reloads `path` until its source contains `text`.
    async fn until_page_has(&mut self, path: &str, text: &str) -> Result<String, Failed> {
        self.until(path, text, |source| source.contains(text)).await
    }

    /// Reloads `path` until `done` holds of its source (`what` says what is waited for).
    async fn until(
        &mut self,
        path: &str,
        what: &str,
        done: impl Fn(&str) -> bool,
    ) -> Result<String, Failed> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let source = self.goto(path).await?;
            if done(&source) {
                return Ok(source);
            }
            if Instant::now() > deadline {
                return Err(format!("{path} never showed {what}; last:\n{source}").into());
            }
            tokio::time::sleep(Duration::from_millis(700)).await;
        }
    }

    async fn sign_in(&mut self, token: &str) -> Result<(), Failed> {
        self.client.delete_all_cookies().await?;
        self.goto("/apps").await?;
        let path = self.path().await?;
        if path != "/sign-in" {
            return Err(format!("a signed-out browser is at {path}, not the sign-in page").into());
        }
        self.shot("sign-in").await?;
        self.client
            .find(Locator::Css("#token"))
            .await?
            .send_keys(token)
            .await?;
        self.client
            .find(Locator::Css("form[action='/sign-in'] button[type=submit]"))
            .await?
            .click()
            .await?;
        let deadline = Instant::now() + PATIENCE;
        while self.path().await? == "/sign-in" && Instant::now() < deadline {
            if self.client.source().await?.contains("role=\"alert\"") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let path = self.path().await?;
        if path != "/apps" {
            let source = self.source().await?;
            return Err(format!("signing in led to {path}, not the fleet:\n{source}").into());
        }
        Ok(())
    }

    /// Clicks the submit control or link `css` names, accepting a confirmation it asks, and waits until the browser has
    /// left the page (every form here leads elsewhere).
    async fn submit(&mut self, css: &str) -> Result<(), Failed> {
        let before = self.client.current_url().await?;
        self.client.find(Locator::Css(css)).await?.click().await?;
        // A data-confirm form asks first.
        let _ = self.client.accept_alert().await;
        let deadline = Instant::now() + PATIENCE;
        while self.client.current_url().await? == before {
            if Instant::now() > deadline {
                return Err(format!("submitting {css} never left {before}").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }

    /// Waits on an operation page until its phase is final; answers the phase.
    async fn operation_outcome(&mut self) -> Result<String, Failed> {
        let path = self.path().await?;
        if !path.contains("/operations/") {
            let source = self.source().await?;
            let said = source
                .split("class=\"flash error\"")
                .nth(1)
                .map_or(source.as_str(), |rest| {
                    rest.split("</div>").next().unwrap_or(rest)
                });
            return Err(format!("the action led to {path}, not an operation: {said}").into());
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let source = self.goto(&path).await?;
            for phase in ["succeeded", "failed", "error"] {
                if source.contains(&format!("badge phase {phase}")) {
                    return Ok(phase.to_string());
                }
            }
            if Instant::now() > deadline {
                return Err(format!("operation {path} never finished:\n{source}").into());
            }
            tokio::time::sleep(Duration::from_millis(700)).await;
        }
    }
}

fn the_console_in_a_browser(
    chromium: &Path,
    driver: &Path,
    kubectl: &Path,
    axe: &Path,
) -> Result<(), Failed> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(chromium, driver, kubectl, axe))
}

async fn run(chromium: &Path, driver: &Path, kubectl: &Path, axe: &Path) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let private_key = std::fs::read(workspace().join("crates/auth/src/testdata/rsa_private.pem"))?;
    let provider = provider::start(&private_key).await?;
    let config = write_config(dir.path(), &provider.issuer)?;
    // With an OpenID issuer configured no first token is printed: the operator makes them.
    let admin = create_token(&config, &["--admin"])?;
    let member = create_token(&config, &["--org", "other"])?;
    let mut process =
        ServeProcess::spawn(&[OsStr::new("--config"), config.as_os_str()], Stdio::null());
    process.wait_ready(PATIENCE, String::new);
    let kubeconfig = dir.path().join("data/simulator.kubeconfig");

    // chromedriver on a free port, chromium headless with a profile of its own.
    let port = free_port();
    let _driver = Killed(
        Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if started.elapsed() > PATIENCE {
            return Err("chromedriver never listened".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let client = browser_session(port, chromium, &dir.path().join("profile"), false).await?;
    let shots = workspace().join("target/console-screenshots");
    std::fs::create_dir_all(&shots)?;
    let mut browser = Browser {
        client,
        base: process.url.clone(),
        seen: Vec::new(),
        shots,
        axe: std::fs::read_to_string(axe)?,
        violations: Vec::new(),
    };
    let outcome = flows(
        &mut browser,
        &admin,
        &member,
        kubectl,
        &kubeconfig,
        dir.path(),
    )
    .await;
    let outcome = match outcome {
        Ok(()) => open_redirects(&mut browser, &member).await,
        failed => failed,
    };
    let outcome = match outcome {
        Ok(()) => single_sign_on(&mut browser, &provider).await,
        failed => failed,
    };
    let _ = browser.client.clone().close().await;
    outcome?;
    // The dark theme, in a browser whose system setting is dark: the same pages, checked again (contrast).
    let dark = browser_session(port, chromium, &dir.path().join("profile-dark"), true).await?;
    let light = std::mem::replace(&mut browser.client, dark);
    drop(light);
    let mut outcome = dark_theme(&mut browser, &admin).await;
    if outcome.is_ok() {
        // The server goes away: an open page says so (its live regions cannot refresh).
        let _ = process.child.kill();
        let _ = process.child.wait();
        outcome = unreachable_is_said(&browser).await;
    }
    let _ = browser.client.clone().close().await;
    outcome?;
    if !browser.violations.is_empty() {
        return Err(format!(
            "serious or critical accessibility violations (axe-core):\n{}",
            browser.violations.join("\n")
        )
        .into());
    }

    // No page ever showed the planted Secret value, plain or encoded, nor a token.
    let encoded = base64_of(PLANTED);
    for (url, source) in &browser.seen {
        for (what, secret) in [
            ("the planted Secret value", PLANTED),
            ("its base64", encoded.as_str()),
            ("the admin token", admin.as_str()),
            ("the member token", member.as_str()),
        ] {
            if source.contains(secret) || url.contains(secret) {
                return Err(format!("{url} shows {what}").into());
            }
        }
    }
    Ok(())
}

fn base64_of(text: &str) -> String {
    use std::fmt::Write as _;
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let _ = out.write_char(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A chromium session through chromedriver on `port`, headless, with a profile of its own; `dark` makes the
/// system's colour scheme dark.
async fn browser_session(
    port: u16,
    chromium: &Path,
    profile: &Path,
    dark: bool,
) -> Result<Client, Failed> {
    let mut args = vec![
        "--headless=new".to_string(),
        "--no-sandbox".into(),
        "--disable-dev-shm-usage".into(),
        "--disable-gpu".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--no-first-run".into(),
        "--window-size=1400,1000".into(),
        format!("--user-data-dir={}", profile.display()),
    ];
    if dark {
        args.push("--force-dark-mode".into());
    }
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("browserName".into(), json!("chrome"));
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": chromium, "args": args }),
    );
    Ok(
        ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await?,
    )
}

/// The main pages in the dark theme: the browser says its scheme is dark, and axe-core checks them (contrast).
async fn dark_theme(browser: &mut Browser, admin: &str) -> Result<(), Failed> {
    browser.sign_in(admin).await?;
    let dark = browser
        .client
        .execute(
            "return matchMedia('(prefers-color-scheme: dark)').matches;",
            vec![],
        )
        .await?;
    if dark != json!(true) {
        return Err("the dark browser's colour scheme is not dark".into());
    }
    browser.goto("/apps").await?;
    browser.shot("dark-fleet").await?;
    browser.goto("/apps/shop").await?;
    browser.shot("dark-app").await?;
    browser
        .goto("/apps/shop/objects/apps%3ADeployment%3Ashop%3Aweb")
        .await?;
    browser.shot("dark-diff").await?;
    Ok(())
}

/// Waits until the open page shows that the server cannot be reached.
async fn unreachable_is_said(browser: &Browser) -> Result<(), Failed> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let shown = browser
            .client
            .execute(
                "var s = document.getElementById('status'); return s && !s.hidden ? s.textContent : null;",
                vec![],
            )
            .await?;
        if let Some(text) = shown.as_str() {
            return if text.contains("cannot be reached") {
                Ok(())
            } else {
                Err(format!("the page says {text:?} when the server is gone").into())
            };
        }
        if Instant::now() > deadline {
            return Err("the page never said the server cannot be reached".into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Signing in through the OpenID provider: the sign-in page offers it, the provider's page approves, and the
/// browser comes back signed in as the ID token's subject, an admin by its group.
/// Signing in with a `next` that would leave the site (a tab or a backslash a browser drops, encoded slashes, a
/// scheme) lands on a page of the console's own origin, in a real browser.
async fn open_redirects(browser: &mut Browser, token: &str) -> Result<(), Failed> {
    let origin = browser.base.trim_end_matches('/').to_string();
    for next in [
        "/%09/evil.example",
        "/%0A/evil.example",
        "//evil.example",
        "/%5Cevil.example",
        "/%2F%2Fevil.example",
        "/%252F%252Fevil.example",
        "https://evil.example/",
        "/\\evil.example",
    ] {
        browser.client.delete_all_cookies().await?;
        browser.goto(&format!("/sign-in?next={next}")).await?;
        browser
            .client
            .find(Locator::Css("#token"))
            .await?
            .send_keys(token)
            .await?;
        browser
            .submit("form[action='/sign-in'] button[type=submit]")
            .await?;
        let landed = browser.client.current_url().await?;
        if landed.origin().ascii_serialization() != origin {
            return Err(format!("signing in with next={next} led the browser to {landed}").into());
        }
    }
    Ok(())
}

async fn single_sign_on(browser: &mut Browser, provider: &provider::Running) -> Result<(), Failed> {
    browser.client.delete_all_cookies().await?;
    let page = browser.goto("/sign-in?next=/apps/shop").await?;
    if !page.contains("Sign in with Test SSO") {
        return Err(format!("the sign-in page offers no single sign-on:\n{page}").into());
    }
    browser.submit("a.sso").await?;
    let at = browser.client.current_url().await?;
    if !at.as_str().starts_with(&provider.issuer) {
        return Err(format!("single sign-on went to {at}, not the provider").into());
    }
    browser.submit("#approve").await?;
    let path = browser.path().await?;
    let page = browser.source().await?;
    // The header names the user as records do (the ID token's name), and says who that is at which issuer.
    if path != "/apps/shop"
        || !page.contains("ada · admin")
        || !page.contains(&format!("title=\"Signed in as ada@{}\"", provider.issuer))
    {
        return Err(format!("after the provider, the browser is at {path}:\n{page}").into());
    }
    if provider.exchanged() != 1 {
        return Err(format!("{} codes were exchanged, not 1", provider.exchanged()).into());
    }
    Ok(())
}

async fn flows(
    browser: &mut Browser,
    admin: &str,
    member: &str,
    kubectl: &Path,
    kubeconfig: &Path,
    dir: &Path,
) -> Result<(), Failed> {
    // Sign in with a token; the fleet lists both apps, with counts and filters.
    browser.sign_in(admin).await?;
    let fleet = browser.until_page_has("/apps", "/apps/fused").await?;
    if !fleet.contains("/apps/shop") || !fleet.contains("Apps by health") {
        return Err(format!("the fleet page lacks the apps or the counts:\n{fleet}").into());
    }
    browser
        .until_page_has("/apps?search=sho", "/apps/shop")
        .await?;
    let filtered = browser.source().await?;
    if filtered.contains("/apps/fused") {
        return Err("searching for \"sho\" still lists fused".into());
    }
    let nothing = browser.goto("/apps?search=zzz").await?;
    if !nothing.contains("No apps match these filters") {
        return Err(format!("an empty search says nothing:\n{nothing}").into());
    }
    browser
        .until_page_has("/apps?env=main&health=healthy", "/apps/shop")
        .await?;
    browser.goto("/apps").await?;
    browser.shot("fleet").await?;
    // The keyboard: the first Tab reaches the skip link, which leads to the main region.
    browser
        .client
        .find(Locator::Css("body"))
        .await?
        .send_keys("\u{E004}")
        .await?;
    let focused = browser
        .client
        .execute(
            "return document.activeElement.getAttribute('href');",
            vec![],
        )
        .await?;
    if focused != json!("#main") {
        return Err(format!("the first Tab focuses {focused}, not the skip link").into());
    }
    // A phone-sized window: the same page, laid out for it, still accessible.
    browser.client.set_window_size(390, 844).await?;
    browser.goto("/apps").await?;
    browser.shot("fleet-phone").await?;
    browser.client.set_window_size(1400, 1000).await?;

    // An app that cannot be rendered says why, on its page and in the fleet.
    let broken = browser
        .until_page_has("/apps/broken", "This app cannot be compared")
        .await?;
    if !broken.contains("apps/missing") {
        return Err(format!("the broken app's page does not say what is wrong:\n{broken}").into());
    }

    // The app: its tree shows the Deployment, its ReplicaSet and their Pods, each a link to its object.
    browser.goto("/apps").await?;
    browser
        .client
        .find(Locator::Css("a[href='/apps/shop']"))
        .await?
        .click()
        .await?;
    let app = browser
        .until(
            "/apps/shop",
            "a tree with Deployment, ReplicaSet and Pods",
            |source| {
                let has = |kind: &str| source.contains(&format!("%3A{kind}%3A"));
                has("Deployment") && has("ReplicaSet") && has("Pod")
            },
        )
        .await?;
    if !app.contains("Actions") || !app.contains("/apps/shop/sync") {
        return Err("an admin sees no sync control".into());
    }
    browser.shot("app").await?;

    // Refresh: the app is asked to be reconciled now, and the page says so.
    browser
        .client
        .find(Locator::Css("form[action='/apps/shop/refresh'] button"))
        .await?
        .click()
        .await?;
    let deadline = Instant::now() + PATIENCE;
    while !browser.source().await?.contains("Refresh asked for") {
        if Instant::now() > deadline {
            return Err("refreshing the app said nothing".into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Sync as admin and watch it succeed; then roll back to the first deploy (automation suspended).
    browser
        .submit("form[action='/apps/shop/sync'] button[type=submit]")
        .await?;
    let phase = browser.operation_outcome().await?;
    if phase != "succeeded" {
        return Err(format!("the sync ended {phase}").into());
    }
    browser.shot("operation").await?;
    browser
        .until_page_has("/apps/shop", "Roll back to deploy")
        .await?;
    browser
        .submit("form[action='/apps/shop/rollback'][data-confirm] button")
        .await?;
    let phase = browser.operation_outcome().await?;
    if phase != "succeeded" {
        return Err(format!("the rollback ended {phase}").into());
    }
    browser
        .until_page_has("/apps/shop", "Automated sync</dt><dd>off")
        .await?;

    // Drift the Deployment with kubectl: its object page shows the diff, side by side and unified.
    let scaled = Command::new(kubectl)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["-n", "shop", "scale", "deployment/web", "--replicas=7"])
        .env("HOME", dir)
        .output()?;
    if !scaled.status.success() {
        return Err(format!("kubectl scale: {}", String::from_utf8_lossy(&scaled.stderr)).into());
    }
    let object = "/apps/shop/objects/apps%3ADeployment%3Ashop%3Aweb";
    // The live manifest shows the drift at once (the watch cache); the diff once the reconciler has compared.
    browser
        .until(object, "the drift in a side-by-side diff", |source| {
            source.contains("table class=\"diff split\"")
                && source.contains("removed: </span>  replicas: 7")
        })
        .await?;
    // Its Events, as `kubectl describe` shows them.
    let with_events = browser.source().await?;
    if !with_events.contains("ScalingReplicaSet") {
        return Err(format!("the Deployment's events are missing:\n{with_events}").into());
    }
    browser.shot("diff").await?;
    let unified = browser.goto(&format!("{object}?diff=unified")).await?;
    if !unified.contains("table class=\"diff unified\"") || !unified.contains("replicas: 7") {
        return Err(format!("no unified diff:\n{unified}").into());
    }

    // Follow the app's logs: lines arrive.
    browser.goto("/apps/shop/logs?follow=1").await?;
    let deadline = Instant::now() + PATIENCE;
    while browser
        .client
        .find_all(Locator::Css("#log .line"))
        .await?
        .is_empty()
    {
        if Instant::now() > deadline {
            return Err("no log lines arrived".into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    browser.shot("logs").await?;

    // The prune fuse: fused syncs its five ConfigMaps (its Secret never a node), then four of them leave git; the
    // sync stops at the fuse, says what it would delete, and a confirmed sync deletes them.
    browser.goto("/apps/fused").await?;
    browser
        .submit("form[action='/apps/fused/sync'] button[type=submit]")
        .await?;
    if browser.operation_outcome().await? != "succeeded" {
        return Err("fused's first sync failed".into());
    }
    let tree = browser
        .until_page_has("/apps/fused?view=list", "setting-4")
        .await?;
    if tree.contains("%3ASecret%3A") || tree.contains(">credentials<") {
        return Err("a Secret is a node of the tree".into());
    }
    for i in 1..5 {
        std::fs::remove_file(dir.join(format!("apps/fused/cm-{i}.yaml")))?;
    }
    browser.goto("/apps/fused").await?;
    browser
        .client
        .find(Locator::Css("#sync-prune"))
        .await?
        .click()
        .await?;
    browser
        .submit("form[action='/apps/fused/sync'] button[type=submit]")
        .await?;
    browser.operation_outcome().await?;
    let stopped = browser.source().await?;
    if !stopped.contains("The prune fuse stopped this sync") || !stopped.contains("setting-3") {
        return Err(format!(
            "the fuse did not stop the sync, or does not say what it would delete:\n{stopped}"
        )
        .into());
    }
    browser.shot("fuse").await?;
    browser.submit("form[data-confirm] button.danger").await?;
    if browser.operation_outcome().await? != "succeeded" {
        return Err("the confirmed sync failed".into());
    }
    browser
        .until(
            "/apps/fused?view=list",
            "setting-0 alone, the rest deleted",
            |source| source.contains("setting-0") && !source.contains("setting-3"),
        )
        .await?;

    // Sign out; a member of another org sees no apps, "not found" for the demo org's app, and no write controls.
    browser.goto("/apps").await?;
    browser.submit("form[action='/sign-out'] button").await?;
    if browser.path().await? != "/sign-in" {
        return Err("signing out did not lead to the sign-in page".into());
    }
    let ended = browser.goto("/apps").await?;
    if !ended.contains("Sign in to Weft") {
        return Err("after signing out the fleet is still shown".into());
    }
    browser.sign_in(member).await?;
    let theirs = browser.goto("/apps").await?;
    if theirs.contains("/apps/shop") || !theirs.contains("No apps yet") {
        return Err(format!("a member of another org sees the demo apps:\n{theirs}").into());
    }
    let hidden = browser.goto("/apps/shop").await?;
    if !hidden.contains("Not found")
        || hidden.contains("storefront")
        || hidden.contains("/apps/shop/sync")
    {
        return Err(format!("another org's app is not \"not found\":\n{hidden}").into());
    }
    Ok(())
}
