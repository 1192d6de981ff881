//! Container image references read as Docker and containerd read them: [`weft_sdk::image`]'s grammar (the one
//! plugins use too), with its parse errors as this crate's [`ImageError::InvalidReference`].
//!
//! [`ImageReference`] wraps the SDK's reference only so that [`ImageReference::parse`] (and `FromStr`) answer an
//! [`ImageError`] naming the reference, as the resolver's callers expect; everything else is the SDK's, through
//! `Deref`.

use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

pub use weft_sdk::image::{DEFAULT_TAG, DOCKER_HUB, DOCKER_HUB_API};

use super::ImageError;

/// An image reference, parsed and normalised by [`weft_sdk::image::ImageReference`] (whose accessors it derefs
/// to); displayed as it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageReference(weft_sdk::image::ImageReference);

impl ImageReference {
    /// Reads `text` as Docker does; the error names the reference and what is wrong with it.
    pub fn parse(text: &str) -> Result<ImageReference, ImageError> {
        weft_sdk::image::ImageReference::parse(text)
            .map(ImageReference)
            .map_err(|error| ImageError::InvalidReference {
                reference: text.to_string(),
                reason: error.to_string(),
            })
    }

    /// The SDK's reference.
    pub fn into_inner(self) -> weft_sdk::image::ImageReference {
        self.0
    }
}

impl Deref for ImageReference {
    type Target = weft_sdk::image::ImageReference;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl From<weft_sdk::image::ImageReference> for ImageReference {
    fn from(reference: weft_sdk::image::ImageReference) -> Self {
        ImageReference(reference)
    }
}

impl fmt::Display for ImageReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for ImageReference {
    type Err = ImageError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ImageReference::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_reference_is_an_image_error_naming_the_reference_and_why() {
        for (text, why) in [
            ("", "it is empty"),
            ("Uppercase:tag", "must be lowercase"),
            ("foo.com//repo", "empty component"),
            ("repo@sha256", "not algorithm:hex"),
        ] {
            let error = ImageReference::parse(text).expect_err(text);
            assert!(
                matches!(&error, ImageError::InvalidReference { reference, .. } if reference == text),
                "{error:?}"
            );
            let error = error.to_string();
            assert!(
                error.starts_with(&format!("{text:?} is not an image reference: ")),
                "{error}"
            );
            assert!(error.contains(why), "{text:?}: {error} (wanted {why:?})");
        }
    }

    #[test]
    fn a_reference_reads_as_the_sdk_reads_it() {
        let reference: ImageReference = "registry.example/shop/web:1.4.2"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(reference.registry(), "registry.example");
        assert_eq!(reference.repository(), "shop/web");
        assert_eq!(reference.to_string(), "registry.example/shop/web:1.4.2");
        let sdk = weft_sdk::image::ImageReference::parse("registry.example/shop/web:1.4.2")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(*reference, sdk);
        assert_eq!(ImageReference::from(sdk.clone()).into_inner(), sdk);
    }
}
