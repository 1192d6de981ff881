//! The query parameters of API requests.

use std::collections::HashMap;
use std::time::Duration;

use crate::api_error::ApiError;
use crate::apiserver::ListQuery;
use weft_k8s::selector::{FieldSelector, LabelSelector};

/// A request's query parameters.
#[derive(Debug, Clone, Default)]
pub struct QueryParams {
    values: HashMap<String, String>,
}

impl QueryParams {
    /// Parses a raw query string.
    pub fn parse(query: Option<&str>) -> Self {
        let values = query
            .map(|query| {
                query
                    .split('&')
                    .filter(|pair| !pair.is_empty())
                    .map(|pair| {
                        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                        (decode(key), decode(value))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self { values }
    }

    /// A parameter's value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// Whether a boolean parameter is `true` (or `1`).
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some("true" | "1"))
    }

    /// `dryRun=All`.
    pub fn dry_run(&self) -> bool {
        self.get("dryRun") == Some("All")
    }

    /// `timeoutSeconds`, for watches.
    pub fn timeout(&self) -> Option<Duration> {
        self.get("timeoutSeconds")
            .and_then(|seconds| seconds.parse::<u64>().ok())
            .filter(|seconds| *seconds > 0)
            .map(Duration::from_secs)
    }

    /// The selectors, limit and continue token of a list or watch.
    pub fn list_query(&self) -> Result<ListQuery, ApiError> {
        let labels = LabelSelector::parse(self.get("labelSelector").unwrap_or_default())
            .map_err(|error| ApiError::BadRequest(error.to_string()))?;
        let fields = FieldSelector::parse(self.get("fieldSelector").unwrap_or_default())
            .map_err(|error| ApiError::BadRequest(error.to_string()))?;
        Ok(ListQuery {
            labels,
            fields,
            limit: self.get("limit").and_then(|limit| limit.parse().ok()),
            continue_token: self.get("continue").map(str::to_owned),
        })
    }
}

/// Percent-decodes a query component (`+` is a space).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'+' => decoded.push(b' '),
            b'%' if index + 2 < bytes.len() => {
                let hex_digits = std::str::from_utf8(&bytes[index + 1..index + 3]).unwrap_or("zz");
                match u8::from_str_radix(hex_digits, 16) {
                    Ok(byte) => {
                        decoded.push(byte);
                        index += 2;
                    }
                    Err(_) => decoded.push(b'%'),
                }
            }
            other => decoded.push(other),
        }
        index += 1;
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_selectors() {
        let params = QueryParams::parse(Some(
            "labelSelector=app%3Dweb%2Ctier+in+%28a%29&watch=true&limit=5",
        ));
        assert_eq!(params.get("labelSelector"), Some("app=web,tier in (a)"));
        assert!(params.flag("watch"));
        let query = params.list_query().expect("valid");
        assert_eq!(query.limit, Some(5));
        assert!(!query.labels.is_empty());
    }

    #[test]
    fn a_trailing_percent_is_kept() {
        assert_eq!(decode("50%"), "50%");
        assert_eq!(decode("a%2"), "a%2");
    }
}
