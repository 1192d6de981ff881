//! Keeping secrets out of what a build leaves in an operation's record: the values of the environment variables
//! the app's configuration sets (`env.NAME` overrides: nothing says they are not credentials) and of variables
//! whose names say they hold one (`*TOKEN*`, `*PASSWORD*`, ...) are replaced by [`REDACTED`] in plans, in their
//! Dockerfiles' `ENV`/`ARG` lines, and wherever other text (a log tail, a reason) quotes them.

use std::collections::BTreeSet;

use weft_sdk::BuildPlan;

/// What a redacted value reads as.
pub const REDACTED: &str = "<redacted>";

/// Words that mark a variable's name as holding a credential (compared in upper case).
const SECRET_WORDS: [&str; 10] = [
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "PRIVATE",
    "API_KEY",
    "APIKEY",
    "ACCESS_KEY",
    "AUTH",
];

/// Values shorter than this are redacted where they are a variable's value, but not searched for in free text: a
/// two-letter value would blank unrelated words of a log.
pub const MIN_SCRUBBED_LEN: usize = 4;

/// The names whose values are secret, and the values seen for them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactor {
    names: BTreeSet<String>,
    values: Vec<String>,
}

/// Whether a variable's name says it holds a credential.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|word| upper.contains(word))
}

impl Redactor {
    /// A redactor for an app whose configuration fixes `overrides`: every `env.NAME` override's value is secret.
    pub fn for_overrides(overrides: &[(String, String)]) -> Self {
        let mut redactor = Redactor::default();
        for (key, value) in overrides {
            if let Some(name) = key.strip_prefix(weft_sdk::steer::ENV_OVERRIDE_PREFIX) {
                redactor.names.insert(name.to_string());
                redactor.remember(value);
            }
        }
        redactor
    }

    /// Learns the secret values `plan` sets (its configured variables, and those whose names look secret), so
    /// that text quoting them is scrubbed too.
    pub fn learn(&mut self, plan: &BuildPlan) {
        for (name, value) in &plan.env {
            if self.is_secret(name) {
                self.remember(value);
            }
        }
    }

    fn remember(&mut self, value: &str) {
        let mut forms = vec![value.to_string()];
        // The form a generated Dockerfile quotes it in (`ENV A="x \"y\""`).
        let quoted = serde_json::Value::String(value.to_string()).to_string();
        forms.push(quoted[1..quoted.len() - 1].to_string());
        for form in forms {
            if form.len() >= MIN_SCRUBBED_LEN && !self.values.contains(&form) {
                self.values.push(form);
            }
        }
        // Longest first, so that a value containing another is replaced whole.
        self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    }

    /// Whether the variable `name` holds a secret.
    pub fn is_secret(&self, name: &str) -> bool {
        self.names.contains(name) || looks_secret(name)
    }

    /// `text` with every secret value it quotes replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for value in &self.values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), REDACTED);
            }
        }
        out
    }

    /// `plan` with its secret variables' values replaced, in `env` and in the Dockerfile.
    pub fn plan(&self, plan: &BuildPlan) -> BuildPlan {
        let mut redacted = plan.clone();
        for (name, value) in &mut redacted.env {
            if self.is_secret(name) {
                *value = REDACTED.to_string();
            }
        }
        redacted.dockerfile = self.dockerfile(&plan.dockerfile);
        redacted.install = plan.install.iter().map(|c| self.text(c)).collect();
        redacted.build = plan.build.iter().map(|c| self.text(c)).collect();
        redacted.start = plan.start.as_deref().map(|c| self.text(c));
        redacted
    }

    /// A Dockerfile with the secret variables of its `ENV` and `ARG` lines redacted, then any secret value it
    /// still quotes elsewhere.
    pub fn dockerfile(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            let (body, newline) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            };
            out.push_str(&self.instruction(body));
            out.push_str(newline);
        }
        self.text(&out)
    }

    /// One Dockerfile line, its secret assignments redacted when it is an `ENV` or `ARG` instruction.
    fn instruction(&self, line: &str) -> String {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let Some((keyword, rest)) = trimmed.split_once(char::is_whitespace) else {
            return line.to_string();
        };
        if !keyword.eq_ignore_ascii_case("ENV") && !keyword.eq_ignore_ascii_case("ARG") {
            return line.to_string();
        }
        let words = shell_words(rest);
        let Some(first) = words.first() else {
            return line.to_string();
        };
        let legacy = !first.contains('=');
        if legacy {
            // `ENV NAME the value`: one variable, the rest of the line its value.
            return if self.is_secret(first) {
                format!("{indent}{keyword} {first} {REDACTED}")
            } else {
                line.to_string()
            };
        }
        let mut changed = false;
        let rewritten: Vec<String> = words
            .iter()
            .map(|word| match word.split_once('=') {
                Some((name, _)) if self.is_secret(name) => {
                    changed = true;
                    format!("{name}={REDACTED}")
                }
                _ => word.clone(),
            })
            .collect();
        if changed {
            format!("{indent}{keyword} {}", rewritten.join(" "))
        } else {
            line.to_string()
        }
    }
}

/// The whitespace-separated words of an instruction's arguments, quotes kept inside their word (`A="x y" B=1` is
/// two words).
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                word.push(c);
            }
            (Some('"'), '\\') => {
                word.push(c);
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.push(c);
            }
            (None, '\\') => {
                word.push(c);
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            (None, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overrides() -> Vec<(String, String)> {
        vec![
            ("env.NPM_TOKEN".into(), "npm_s3cr3t_abcdef".into()),
            ("env.GREETING".into(), "hello \"world\"".into()),
            ("start".into(), "npm start".into()),
        ]
    }

    fn plan() -> BuildPlan {
        BuildPlan {
            kind: "node".into(),
            base_image: "node:20-slim".into(),
            install: vec!["npm ci --token npm_s3cr3t_abcdef".into()],
            start: Some("npm start".into()),
            env: vec![
                ("NODE_ENV".into(), "production".into()),
                ("NPM_TOKEN".into(), "npm_s3cr3t_abcdef".into()),
                ("GREETING".into(), "hello \"world\"".into()),
                ("DB_PASSWORD".into(), "hunter22".into()),
                ("JOBS".into(), "2".into()),
            ],
            dockerfile: "FROM node:20-slim\nWORKDIR /app\nENV NODE_ENV=production\nENV NPM_TOKEN=npm_s3cr3t_abcdef\n\
                         ENV GREETING=\"hello \\\"world\\\"\"\n  env DB_PASSWORD hunter22 and more\nARG JOBS=2\n\
                         ENV A=1 DB_PASSWORD=\"hunter22\" B=\"x y\"\nRUN npm ci --token npm_s3cr3t_abcdef\n"
                .into(),
            ..BuildPlan::default()
        }
    }

    #[test]
    fn configured_and_secret_looking_variables_are_redacted_in_plans() {
        let mut redactor = Redactor::for_overrides(&overrides());
        redactor.learn(&plan());
        let redacted = redactor.plan(&plan());
        assert_eq!(
            redacted.env,
            [
                ("NODE_ENV".to_string(), "production".to_string()),
                ("NPM_TOKEN".to_string(), REDACTED.to_string()),
                ("GREETING".to_string(), REDACTED.to_string()),
                ("DB_PASSWORD".to_string(), REDACTED.to_string()),
                ("JOBS".to_string(), "2".to_string()),
            ]
        );
        assert_eq!(
            redacted.dockerfile,
            "FROM node:20-slim\nWORKDIR /app\nENV NODE_ENV=production\nENV NPM_TOKEN=<redacted>\n\
             ENV GREETING=<redacted>\n  env DB_PASSWORD <redacted>\nARG JOBS=2\n\
             ENV A=1 DB_PASSWORD=<redacted> B=\"x y\"\nRUN npm ci --token <redacted>\n"
        );
        assert_eq!(redacted.install, ["npm ci --token <redacted>"]);
        // What is not secret is kept.
        assert_eq!(redacted.start.as_deref(), Some("npm start"));
        assert_eq!(redacted.base_image, "node:20-slim");
        for text in [&redacted.dockerfile, &format!("{:?}", redacted.env)] {
            assert!(
                !text.contains("s3cr3t") && !text.contains("hunter22"),
                "{text}"
            );
        }
    }

    #[test]
    fn text_quoting_a_secret_is_scrubbed_but_short_values_are_left() {
        let mut redactor = Redactor::for_overrides(&[
            ("env.API_KEY".into(), "k-123456".into()),
            ("env.LEVEL".into(), "3".into()),
        ]);
        redactor.learn(&BuildPlan {
            env: vec![("SESSION_SECRET".into(), "abcd1234".into())],
            ..BuildPlan::default()
        });
        assert_eq!(
            redactor.text("curl -H 'key: k-123456' failed (level 3, abcd1234)"),
            "curl -H 'key: <redacted>' failed (level 3, <redacted>)"
        );
        assert!(redactor.is_secret("LEVEL") && !redactor.is_secret("PORT"));
        assert!(looks_secret("github_token") && !looks_secret("NODE_ENV"));
        assert_eq!(
            Redactor::default().text("nothing to hide"),
            "nothing to hide"
        );
    }

    #[test]
    fn instruction_words_keep_their_quotes() {
        assert_eq!(
            shell_words(r#"A="x \"y\" z" B='p q' C=1\ 2"#),
            [r#"A="x \"y\" z""#, "B='p q'", r"C=1\ 2"]
        );
        assert_eq!(shell_words("  "), Vec::<String>::new());
    }
}
