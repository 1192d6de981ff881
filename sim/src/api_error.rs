//! Errors the simulated API server answers with, rendered as Kubernetes `Status` objects.

use serde_json::{Value, json};

/// One cause inside a `Status`'s `details.causes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusCause {
    /// The machine-readable reason, such as `FieldValueRequired` or `FieldManagerConflict`.
    pub reason: String,
    /// The human-readable message.
    pub message: String,
    /// The field path the cause refers to, such as `spec.selector`.
    pub field: String,
}

impl StatusCause {
    /// A `FieldValueRequired` cause for a missing field.
    pub fn required(field: &str) -> Self {
        Self {
            reason: "FieldValueRequired".to_owned(),
            message: "Required value".to_owned(),
            field: field.to_owned(),
        }
    }

    /// A `FieldValueInvalid` cause for a field whose value is not allowed.
    pub fn invalid(field: &str, value: &str, detail: &str) -> Self {
        Self {
            reason: "FieldValueInvalid".to_owned(),
            message: format!("Invalid value: \"{value}\": {detail}"),
            field: field.to_owned(),
        }
    }

    /// A `FieldValueInvalid` cause whose value is printed as JSON, as kube-apiserver 1.34 prints structured values.
    pub fn invalid_value(field: &str, value: &Value, detail: &str) -> Self {
        Self {
            reason: "FieldValueInvalid".to_owned(),
            message: format!("Invalid value: {value}: {detail}"),
            field: field.to_owned(),
        }
    }

    /// A `FieldValueForbidden` cause for a change the API refuses.
    pub fn forbidden(field: &str, detail: &str) -> Self {
        Self {
            reason: "FieldValueForbidden".to_owned(),
            message: format!("Forbidden: {detail}"),
            field: field.to_owned(),
        }
    }

    fn to_json(&self) -> Value {
        json!({"reason": self.reason, "message": self.message, "field": self.field})
    }
}

/// What the resource an error is about is called, for `Status.details`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ErrorSubject {
    /// The API group, empty for the core group.
    pub group: String,
    /// The plural resource name (for most errors) or the kind (for `Invalid`).
    pub kind: String,
    /// The object's name.
    pub name: String,
}

impl ErrorSubject {
    /// The group-qualified resource as kube-apiserver prints it: `deployments.apps`, or `pods` in the core group.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}.{}", self.kind, self.group)
        }
    }
}

/// An API error with its HTTP status code and `Status` reason.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// The object does not exist (404 NotFound).
    #[error("{} \"{}\" not found", .0.qualified(), .0.name)]
    NotFound(ErrorSubject),
    /// No resource is served at the requested path (404 NotFound).
    #[error("the server could not find the requested resource")]
    NoSuchResource,
    /// An object with that name already exists (409 AlreadyExists).
    #[error("{} \"{}\" already exists", .0.qualified(), .0.name)]
    AlreadyExists(ErrorSubject),
    /// The write was based on a stale resourceVersion or precondition (409 Conflict).
    #[error("Operation cannot be fulfilled on {} \"{}\": {message}", .subject.qualified(), .subject.name)]
    Conflict {
        /// The object the write was for.
        subject: ErrorSubject,
        /// Why the write conflicted.
        message: String,
    },
    /// Server-side apply found fields owned by other managers (409 Conflict).
    #[error("{message}")]
    ApplyConflict {
        /// The full message naming the managers and fields.
        message: String,
        /// One `FieldManagerConflict` cause per conflicting field.
        causes: Vec<StatusCause>,
        /// The object the apply was for.
        subject: ErrorSubject,
    },
    /// The object failed validation (422 Invalid); `subject.kind` is the object's kind.
    #[error("{} \"{}\" is invalid: {}", qualified_kind(.subject), .subject.name, join_causes(.causes))]
    Invalid {
        /// The object that failed validation.
        subject: ErrorSubject,
        /// One cause per invalid or missing field.
        causes: Vec<StatusCause>,
    },
    /// The requested resourceVersion is no longer in the watch history (410 Gone / Expired).
    #[error("{0}")]
    Gone(String),
    /// The request was malformed (400 BadRequest).
    #[error("{0}")]
    BadRequest(String),
    /// The verb is not supported on this resource (405 MethodNotAllowed).
    #[error("{0}")]
    MethodNotAllowed(String),
    /// The request body's content type is not supported (415 UnsupportedMediaType).
    #[error(
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json; got {0}"
    )]
    UnsupportedMediaType(String),
    /// The namespace is being deleted or the operation is refused (403 Forbidden).
    #[error("{0}")]
    Forbidden(String),
    /// An internal failure, or an injected 500 (500 InternalError).
    #[error("{0}")]
    Internal(String),
    /// The client should slow down, or an injected 429 (429 TooManyRequests).
    #[error("{message}")]
    TooManyRequests {
        /// The message.
        message: String,
        /// Seconds the client should wait, sent as `Retry-After` and `details.retryAfterSeconds`.
        retry_after_seconds: u32,
    },
    /// Any other status code, used by fault injection (for example 503).
    #[error("{message}")]
    Custom {
        /// The HTTP status code.
        code: u16,
        /// The Status reason.
        reason: String,
        /// The message.
        message: String,
    },
}

fn qualified_kind(subject: &ErrorSubject) -> String {
    if subject.group.is_empty() {
        subject.kind.clone()
    } else {
        format!("{}.{}", subject.kind, subject.group)
    }
}

fn join_causes(causes: &[StatusCause]) -> String {
    let parts: Vec<String> = causes
        .iter()
        .map(|cause| format!("{}: {}", cause.field, cause.message))
        .collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("[{}]", parts.join(", "))
    }
}

impl ApiError {
    /// A 404 for the named object of a resource.
    pub fn not_found(group: &str, plural: &str, name: &str) -> Self {
        Self::NotFound(ErrorSubject {
            group: group.to_owned(),
            kind: plural.to_owned(),
            name: name.to_owned(),
        })
    }

    /// A 422 for an object of a kind with the given causes.
    pub fn invalid(group: &str, kind: &str, name: &str, causes: Vec<StatusCause>) -> Self {
        Self::Invalid {
            subject: ErrorSubject {
                group: group.to_owned(),
                kind: kind.to_owned(),
                name: name.to_owned(),
            },
            causes,
        }
    }

    /// A 422 `Invalid` for an object of a resource, named by its `metadata.name`.
    pub fn invalid_object(
        resource: &crate::resource::ResourceType,
        object: &Value,
        causes: Vec<StatusCause>,
    ) -> Self {
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        Self::invalid(&resource.group, &resource.kind, name, causes)
    }

    /// The HTTP status code.
    pub fn code(&self) -> u16 {
        match self {
            Self::NotFound(_) | Self::NoSuchResource => 404,
            Self::AlreadyExists(_) | Self::Conflict { .. } | Self::ApplyConflict { .. } => 409,
            Self::Invalid { .. } => 422,
            Self::Gone(_) => 410,
            Self::BadRequest(_) => 400,
            Self::MethodNotAllowed(_) => 405,
            Self::UnsupportedMediaType(_) => 415,
            Self::Forbidden(_) => 403,
            Self::Internal(_) => 500,
            Self::TooManyRequests { .. } => 429,
            Self::Custom { code, .. } => *code,
        }
    }

    /// The `Status.reason`.
    pub fn reason(&self) -> &str {
        match self {
            Self::NotFound(_) | Self::NoSuchResource => "NotFound",
            Self::AlreadyExists(_) => "AlreadyExists",
            Self::Conflict { .. } | Self::ApplyConflict { .. } => "Conflict",
            Self::Invalid { .. } => "Invalid",
            Self::Gone(_) => "Expired",
            Self::BadRequest(_) => "BadRequest",
            Self::MethodNotAllowed(_) => "MethodNotAllowed",
            Self::UnsupportedMediaType(_) => "UnsupportedMediaType",
            Self::Forbidden(_) => "Forbidden",
            Self::Internal(_) => "InternalError",
            Self::TooManyRequests { .. } => "TooManyRequests",
            Self::Custom { reason, .. } => reason,
        }
    }

    /// Seconds a client should wait before retrying, when the error says so.
    pub fn retry_after_seconds(&self) -> Option<u32> {
        match self {
            Self::TooManyRequests {
                retry_after_seconds,
                ..
            } => Some(*retry_after_seconds),
            _ => None,
        }
    }

    /// The error as a Kubernetes `Status` object.
    pub fn to_status(&self) -> Value {
        let mut details = serde_json::Map::new();
        let subject = match self {
            Self::NotFound(subject) | Self::AlreadyExists(subject) => Some(subject),
            Self::Conflict { subject, .. }
            | Self::ApplyConflict { subject, .. }
            | Self::Invalid { subject, .. } => Some(subject),
            _ => None,
        };
        if let Some(subject) = subject {
            details.insert("name".into(), json!(subject.name));
            if !subject.group.is_empty() {
                details.insert("group".into(), json!(subject.group));
            }
            details.insert("kind".into(), json!(subject.kind));
        }
        let causes = match self {
            Self::ApplyConflict { causes, .. } | Self::Invalid { causes, .. } => Some(causes),
            _ => None,
        };
        if let Some(causes) = causes {
            let causes: Vec<Value> = causes.iter().map(StatusCause::to_json).collect();
            details.insert("causes".into(), Value::Array(causes));
        }
        if let Some(seconds) = self.retry_after_seconds() {
            details.insert("retryAfterSeconds".into(), json!(seconds));
        }
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.to_string(),
            "reason": self.reason(),
            "code": self.code(),
        });
        if !details.is_empty() {
            status["details"] = Value::Object(details);
        }
        status
    }
}

/// A `Status` reporting success, as returned by a delete that removed the object at once.
pub fn success_status(group: &str, plural: &str, name: &str, uid: &str) -> Value {
    let mut details = json!({"name": name, "kind": plural, "uid": uid});
    if !group.is_empty() {
        details["group"] = json!(group);
    }
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_names_the_qualified_resource() {
        let error = ApiError::not_found("apps", "deployments", "web");
        assert_eq!(error.to_string(), "deployments.apps \"web\" not found");
        let status = error.to_status();
        assert_eq!(status["code"], 404);
        assert_eq!(status["reason"], "NotFound");
        assert_eq!(status["details"]["group"], "apps");
    }

    #[test]
    fn invalid_lists_each_cause() {
        let error = ApiError::invalid(
            "apps",
            "Deployment",
            "web",
            vec![
                StatusCause::required("spec.selector"),
                StatusCause::required("spec.template"),
            ],
        );
        assert_eq!(
            error.to_string(),
            "Deployment.apps \"web\" is invalid: [spec.selector: Required value, spec.template: Required value]"
        );
        assert_eq!(
            error.to_status()["details"]["causes"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
    }

    #[test]
    fn too_many_requests_carries_retry_after() {
        let error = ApiError::TooManyRequests {
            message: "slow down".into(),
            retry_after_seconds: 3,
        };
        assert_eq!(error.code(), 429);
        assert_eq!(error.to_status()["details"]["retryAfterSeconds"], 3);
    }
}
