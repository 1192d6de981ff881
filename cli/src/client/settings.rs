//! Where the client connects and with which token: `--server`, `WEFT_SERVER` or the default address, and a token
//! from `--token-file`, `WEFT_TOKEN` or `$XDG_CONFIG_HOME/weft/token` (never a flag: a flag's value lands in shell
//! history and process lists).

use std::path::{Path, PathBuf};

use reqwest::Url;

use super::ClientError;

/// The server a client talks to when neither `--server` nor `WEFT_SERVER` names one (`weft serve`'s default).
pub(crate) const DEFAULT_SERVER: &str = "http://127.0.0.1:7780";
/// The environment variable naming the server.
pub(crate) const SERVER_ENV: &str = "WEFT_SERVER";
/// The environment variable holding the token.
pub(crate) const TOKEN_ENV: &str = "WEFT_TOKEN";

/// The server's base URL: `http://` is assumed when no scheme is given; only http and https are accepted.
pub(crate) fn server_url(given: &str) -> Result<Url, ClientError> {
    let given = given.trim();
    let text = if given.contains("://") {
        given.to_string()
    } else {
        format!("http://{given}")
    };
    let invalid = |reason: &str| ClientError::InvalidServer {
        server: given.to_string(),
        reason: reason.to_string(),
    };
    let url = Url::parse(&text).map_err(|e| invalid(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("the scheme must be http or https"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("it names no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("it must not have a query or a fragment"));
    }
    Ok(url)
}

/// The server named by the flag, else by `WEFT_SERVER` (when set and not empty), else the default.
pub(crate) fn resolve_server(flag: Option<&str>, env: Option<String>) -> Result<Url, ClientError> {
    match (flag, env.filter(|e| !e.trim().is_empty())) {
        (Some(flag), _) => server_url(flag),
        (None, Some(env)) => server_url(&env),
        (None, None) => server_url(DEFAULT_SERVER),
    }
}

/// The default token file: `$XDG_CONFIG_HOME/weft/token`, or `~/.config/weft/token`.
pub(crate) fn default_token_file(
    xdg_config_home: Option<PathBuf>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    xdg_config_home
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".config")))
        .map(|config| config.join("weft").join("token"))
}

/// The token: from `--token-file` when given, else `WEFT_TOKEN`, else the default token file when it exists.
pub(crate) fn resolve_token(
    token_file: Option<&Path>,
    env: Option<String>,
    default_file: Option<&Path>,
) -> Result<String, ClientError> {
    if let Some(path) = token_file {
        return read_token_file(path);
    }
    if let Some(token) = env.filter(|t| !t.trim().is_empty()) {
        return checked(token.trim().to_string(), TOKEN_ENV);
    }
    match default_file {
        Some(path) if path.exists() => read_token_file(path),
        _ => Err(ClientError::NoToken {
            looked_in: default_file
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "$XDG_CONFIG_HOME/weft/token".to_string()),
        }),
    }
}

fn read_token_file(path: &Path) -> Result<String, ClientError> {
    let text = std::fs::read_to_string(path).map_err(|e| ClientError::TokenFile {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let token = text.trim();
    if token.is_empty() {
        return Err(ClientError::TokenFile {
            path: path.to_path_buf(),
            reason: "the file is empty".to_string(),
        });
    }
    checked(token.to_string(), &path.display().to_string())
}

/// A token must fit in an HTTP header: printable ASCII, no spaces.
fn checked(token: String, from: &str) -> Result<String, ClientError> {
    if token.bytes().all(|b| b.is_ascii_graphic()) {
        Ok(token)
    } else {
        Err(ClientError::MalformedToken {
            from: from.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_urls_take_a_default_scheme_and_refuse_others() {
        assert_eq!(
            server_url("127.0.0.1:7799").unwrap().as_str(),
            "http://127.0.0.1:7799/"
        );
        assert_eq!(
            server_url("https://weft.example/base/").unwrap().as_str(),
            "https://weft.example/base/"
        );
        assert!(matches!(
            server_url("ftp://x"),
            Err(ClientError::InvalidServer { .. })
        ));
        assert!(server_url("http://x/?a=b").is_err());
    }

    #[test]
    fn the_flag_wins_over_the_environment_which_wins_over_the_default() {
        let env = Some("http://from-env:1".to_string());
        assert_eq!(
            resolve_server(Some("http://flag:2"), env.clone())
                .unwrap()
                .host_str(),
            Some("flag")
        );
        assert_eq!(
            resolve_server(None, env).unwrap().host_str(),
            Some("from-env")
        );
        assert_eq!(
            resolve_server(None, Some(" ".into())).unwrap().as_str(),
            "http://127.0.0.1:7780/"
        );
    }

    #[test]
    fn tokens_come_from_the_file_flag_then_the_environment_then_the_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let flag_file = dir.path().join("flag");
        std::fs::write(&flag_file, "weft_from_flag\n").unwrap();
        let default_file = dir.path().join("weft").join("token");
        std::fs::create_dir_all(default_file.parent().unwrap()).unwrap();
        std::fs::write(&default_file, "  weft_from_config  \n").unwrap();
        let env = Some("weft_from_env".to_string());
        assert_eq!(
            resolve_token(Some(&flag_file), env.clone(), Some(&default_file)).unwrap(),
            "weft_from_flag"
        );
        assert_eq!(
            resolve_token(None, env, Some(&default_file)).unwrap(),
            "weft_from_env"
        );
        assert_eq!(
            resolve_token(None, None, Some(&default_file)).unwrap(),
            "weft_from_config"
        );
        let missing = dir.path().join("none");
        assert!(matches!(
            resolve_token(None, None, Some(&missing)),
            Err(ClientError::NoToken { .. })
        ));
        assert!(matches!(
            resolve_token(Some(&missing), None, None),
            Err(ClientError::TokenFile { .. })
        ));
        assert!(matches!(
            resolve_token(None, Some("two words".into()), None),
            Err(ClientError::MalformedToken { .. })
        ));
    }

    #[test]
    fn the_default_token_file_follows_xdg() {
        assert_eq!(
            default_token_file(Some("/xdg".into()), Some("/home/u".into())),
            Some(PathBuf::from("/xdg/weft/token"))
        );
        assert_eq!(
            default_token_file(Some("relative".into()), Some("/home/u".into())),
            Some(PathBuf::from("/home/u/.config/weft/token"))
        );
        assert_eq!(default_token_file(None, None), None);
    }
}
