//! Reads: one object, or a page of a filtered list with a continue token.

use std::sync::Arc;

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

fn encode_continue(resource_version: u64, namespace: &str, name: &str) -> String {
    hex::encode(format!("{resource_version}\n{namespace}\n{name}"))
}

fn decode_continue(token: &str) -> Option<(u64, String, String)> {
    let text = String::from_utf8(hex::decode(token).ok()?).ok()?;
    let mut parts = text.splitn(3, '\n');
    let resource_version = parts.next()?.parse().ok()?;
    Some((
        resource_version,
        parts.next()?.to_owned(),
        parts.next()?.to_owned(),
    ))
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
        let (resource_version, after) = match &query.continue_token {
            Some(token) if !token.is_empty() => {
                let (resource_version, namespace, name) = decode_continue(token)
                    .ok_or_else(|| ApiError::BadRequest("continue key is not valid".to_owned()))?;
                (Some(resource_version), Some((namespace, name)))
            }
            _ => (None, None),
        };
        let state = self.lock();
        let resource_version = resource_version.unwrap_or_else(|| state.store.revision());
        let limit = query.limit.filter(|limit| *limit > 0);
        let mut items = Vec::new();
        let mut more = false;
        let mut remaining_item_count = None;
        let unfiltered = query.labels.is_empty() && query.fields.is_empty();
        let mut scan = state.store.scan(&resource.key(), namespace, after);
        for object in scan.by_ref() {
            if !matches_query(object, &query.labels, &query.fields) {
                continue;
            }
            if limit.is_some_and(|limit| items.len() >= limit) {
                more = true;
                if unfiltered {
                    remaining_item_count = Some(1 + scan.count() as u64);
                }
                break;
            }
            items.push(object.clone());
        }
        let continue_token = match items.last() {
            Some(last) if more => Some(encode_continue(
                resource_version,
                &last.namespace,
                &last.name,
            )),
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
        let token = encode_continue(42, "ns", "name");
        assert_eq!(
            decode_continue(&token),
            Some((42, "ns".to_owned(), "name".to_owned()))
        );
        assert_eq!(decode_continue("zz"), None);
    }
}
