//! Reads: one object, or a page of a filtered list with a continue token.

use std::sync::Arc;

use serde_json::{Value, json};

use super::ApiServer;
use crate::api_error::ApiError;
use crate::resource::ResourceType;
use crate::store::StoredObject;
use weft_k8s::selector::{FieldSelector, LabelSelector};

/// Filters and paging of a list request.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// `labelSelector`.
    pub labels: LabelSelector,
    /// `fieldSelector`.
    pub fields: FieldSelector,
    /// `limit`: at most this many items per page.
    pub limit: Option<usize>,
    /// `continue`: the token of the previous page.
    pub continue_token: Option<String>,
}

/// One page of a list.
#[derive(Debug, Clone)]
pub struct ListPage {
    /// The matching objects, in namespace and name order.
    pub items: Vec<Arc<StoredObject>>,
    /// The resourceVersion the list is consistent with.
    pub resource_version: u64,
    /// The token for the next page, when there is one.
    pub continue_token: Option<String>,
    /// How many objects the later pages hold, when a limited list without selectors has more (as kube-apiserver,
    /// which cannot count through selectors, leaves it out with them).
    pub remaining_item_count: Option<u64>,
}

impl ListPage {
    /// The list's `metadata` (`ListMeta`): its resourceVersion, and where paging goes on.
    pub fn metadata(&self) -> Value {
        let mut metadata = json!({"resourceVersion": self.resource_version.to_string()});
        if let Some(token) = &self.continue_token {
            metadata["continue"] = json!(token);
        }
        if let Some(remaining) = self.remaining_item_count {
            metadata["remainingItemCount"] = json!(remaining);
        }
        metadata
    }
}

/// Whether a stored object passes a list's selectors.
pub fn matches_query(
    object: &StoredObject,
    labels: &LabelSelector,
    fields: &FieldSelector,
) -> bool {
    if !labels.is_empty() && !labels.matches_pairs(&object.labels) {
        return false;
    }
    if fields.is_empty() {
        return true;
    }
    if fields.only_metadata() {
        fields.matches_name(&object.namespace, &object.name)
    } else {
        fields.matches_object(&object.value())
    }
}

/// Where a paged list goes on: the resourceVersion it is consistent with, the last object it returned, and how many
/// objects were left after it (so the next page says `remainingItemCount` without counting).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Continuation {
    resource_version: u64,
    namespace: String,
    name: String,
    remaining: Option<u64>,
}

fn encode_continue(continuation: &Continuation) -> String {
    let remaining = continuation
        .remaining
        .map(|remaining| remaining.to_string())
        .unwrap_or_default();
    hex::encode(format!(
        "{}\n{}\n{}\n{remaining}",
        continuation.resource_version, continuation.namespace, continuation.name
    ))
}

fn decode_continue(token: &str) -> Option<Continuation> {
    let text = String::from_utf8(hex::decode(token).ok()?).ok()?;
    let mut parts = text.splitn(4, '\n');
    Some(Continuation {
        resource_version: parts.next()?.parse().ok()?,
        namespace: parts.next()?.to_owned(),
        name: parts.next()?.to_owned(),
        remaining: parts.next().and_then(|text| text.parse().ok()),
    })
}

impl ApiServer {
    /// One object.
    pub fn get(
        &self,
        resource: &ResourceType,
        namespace: &str,
        name: &str,
    ) -> Result<Arc<StoredObject>, ApiError> {
        self.lock()
            .store
            .get(&resource.key(), namespace, name)
            .ok_or_else(|| ApiError::not_found(&resource.group, &resource.plural, name))
    }

    /// A page of objects in a namespace (or all namespaces) that match the query.
    pub fn list(
        &self,
        resource: &ResourceType,
        namespace: Option<&str>,
        query: &ListQuery,
    ) -> Result<ListPage, ApiError> {
        let continued = match &query.continue_token {
            Some(token) if !token.is_empty() => Some(
                decode_continue(token)
                    .ok_or_else(|| ApiError::BadRequest("continue key is not valid".to_owned()))?,
            ),
            _ => None,
        };
        let state = self.lock();
        let resource_version = continued
            .as_ref()
            .map_or_else(|| state.store.revision(), |c| c.resource_version);
        let limit = query.limit.filter(|limit| *limit > 0);
        let unfiltered = query.labels.is_empty() && query.fields.is_empty();
        // Without selectors the objects left are known without a scan (kube-apiserver leaves the count out with
        // selectors): the count of the resource, or what the previous page left, less this page.
        let in_scope = match &continued {
            Some(continued) => continued.remaining,
            None => Some(state.store.count(&resource.key(), namespace) as u64),
        };
        let after = continued.map(|c| (c.namespace, c.name));
        let mut items = Vec::new();
        let mut more = false;
        for object in state.store.scan(&resource.key(), namespace, after) {
            if !matches_query(object, &query.labels, &query.fields) {
                continue;
            }
            if limit.is_some_and(|limit| items.len() >= limit) {
                more = true;
                break;
            }
            items.push(object.clone());
        }
        let remaining_item_count = in_scope
            .filter(|_| unfiltered && more)
            .map(|in_scope| in_scope.saturating_sub(items.len() as u64));
        let continue_token = match items.last() {
            Some(last) if more => Some(encode_continue(&Continuation {
                resource_version,
                namespace: last.namespace.clone(),
                name: last.name.clone(),
                remaining: remaining_item_count,
            })),
            _ => None,
        };
        Ok(ListPage {
            items,
            resource_version,
            continue_token,
            remaining_item_count,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip() {
        let continuation = Continuation {
            resource_version: 42,
            namespace: "ns".to_owned(),
            name: "name".to_owned(),
            remaining: Some(7),
        };
        assert_eq!(
            decode_continue(&encode_continue(&continuation)),
            Some(continuation)
        );
        assert_eq!(decode_continue("zz"), None);
    }
}
