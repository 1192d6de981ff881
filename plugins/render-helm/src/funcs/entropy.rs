//! Where a render's random values and clock come from: the app's render seed and the revision's time, set once per
//! render, and one ChaCha20 stream per template, so that a value stays what it was when other templates change.
//!
//! The rule (docs/render-randomness.md): the n-th random draw made while rendering template `T` (the template's
//! full name, `CHART/templates/FILE`, or `CHART/charts/SUB/templates/FILE` for a subchart; helpers that `T`
//! includes draw from `T`'s stream) is the n-th draw of ChaCha20 keyed with HMAC-SHA256(seed, "helm-random" ||
//! T). A value therefore changes only when the seed is rotated or when `T` itself, or the values it reads before
//! that draw, change what `T` draws first.

use std::cell::RefCell;
use std::collections::HashMap;

use chacha20::ChaCha20Rng;
use chacha20::rand_core::{Rng as _, SeedableRng as _};
use hmac::{Hmac, KeyInit as _, Mac as _};
use rustcrypto_sha2::Sha256;
use weft_sdk::RenderSeed;

/// What separates the Helm renderer's draws from anything else derived from the same seed.
const DOMAIN: &[u8] = b"helm-random";

/// The render's seed and time, and the streams drawn so far.
#[derive(Default)]
struct Context {
    seed: Option<RenderSeed>,
    revision_time: Option<i64>,
    template: String,
    streams: HashMap<String, ChaCha20Rng>,
}

thread_local! {
    static CONTEXT: RefCell<Context> = RefCell::new(Context::default());
}

/// Runs `render` with `seed` and `revision_time` as what the template functions draw from and read as the clock,
/// then forgets them (and every stream), whatever `render` returns.
pub fn with_render_context<T>(
    seed: Option<RenderSeed>,
    revision_time: Option<i64>,
    render: impl FnOnce() -> T,
) -> T {
    let previous = CONTEXT.with(|context| {
        context.replace(Context {
            seed,
            revision_time,
            ..Context::default()
        })
    });
    let result = render();
    CONTEXT.with(|context| context.replace(previous));
    result
}

/// Names the template being rendered: the draws that follow come from its stream.
pub fn begin_template(name: &str) {
    CONTEXT.with(|context| context.borrow_mut().template = name.to_string());
}

/// The ChaCha20 key of template `template`'s stream: HMAC-SHA256(seed, "helm-random" || template).
pub fn stream_key(seed: &RenderSeed, template: &str) -> [u8; 32] {
    let mut mac =
        <Hmac<Sha256>>::new_from_slice(seed.bytes()).expect("HMAC takes a key of any length");
    mac.update(DOMAIN);
    mac.update(template.as_bytes());
    mac.finalize().into_bytes().into()
}

/// Fills `out` from the current template's stream; fails when the render has no seed.
pub fn fill(function: &str, out: &mut [u8]) -> Result<(), String> {
    CONTEXT.with(|context| {
        let mut context = context.borrow_mut();
        let Context {
            seed,
            template,
            streams,
            ..
        } = &mut *context;
        let Some(seed) = seed else {
            return Err(format!(
                "{function}: this render has no seed to draw random values from (a server gives each app one; \
                 `weft render` uses the local user's)"
            ));
        };
        let stream = streams
            .entry(template.clone())
            .or_insert_with(|| ChaCha20Rng::from_seed(stream_key(seed, template)));
        stream.fill_bytes(out);
        Ok(())
    })
}

/// A uniformly drawn number below `bound` (which must not be 0), by rejection so no value is likelier.
pub fn below(function: &str, bound: u64) -> Result<u64, String> {
    debug_assert!(bound > 0);
    let zone = u64::MAX - (u64::MAX % bound);
    loop {
        let mut bytes = [0u8; 8];
        fill(function, &mut bytes)?;
        let draw = u64::from_le_bytes(bytes);
        if draw < zone {
            return Ok(draw % bound);
        }
    }
}

/// The revision's time in seconds since the Unix epoch: what `now` returns. A source without a commit time (a
/// local directory outside git) reads the Unix epoch, so that its renders are reproducible too.
pub fn revision_time() -> i64 {
    CONTEXT.with(|context| context.borrow().revision_time.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(template: &str, n: usize) -> Vec<u8> {
        begin_template(template);
        let mut out = vec![0; n];
        fill("test", &mut out).unwrap();
        out
    }

    #[test]
    fn a_template_draws_the_same_values_on_every_render_whatever_the_others_draw() {
        let seed = weft_sdk::testing::render_seed("shop");
        let first = with_render_context(Some(seed.clone()), None, || {
            (
                draw("c/templates/a.yaml", 16),
                draw("c/templates/secret.yaml", 16),
            )
        });
        let second = with_render_context(Some(seed), None, || {
            // Another template draws more, and first: the secret's stream does not move.
            let _ = draw("c/templates/a.yaml", 1000);
            let _ = draw("c/templates/b.yaml", 5);
            draw("c/templates/secret.yaml", 16)
        });
        assert_eq!(first.1, second);
        assert_ne!(first.0, first.1);
    }

    #[test]
    fn two_apps_draw_different_values_and_a_render_without_a_seed_draws_none() {
        let a = with_render_context(Some(weft_sdk::testing::render_seed("a")), None, || {
            draw("c/templates/s.yaml", 16)
        });
        let b = with_render_context(Some(weft_sdk::testing::render_seed("b")), None, || {
            draw("c/templates/s.yaml", 16)
        });
        assert_ne!(a, b);
        let refused = with_render_context(None, None, || fill("randAlpha", &mut [0; 4]));
        assert!(refused.unwrap_err().contains("no seed"), "refused");
    }

    #[test]
    fn the_stream_key_is_hmac_sha256_of_the_domain_and_the_template_name() {
        // HMAC-SHA256(key = 32 bytes of 0x0b, "helm-random" || "c/templates/s.yaml"), computed independently with
        // Python's hmac module.
        let key = stream_key(&RenderSeed::new([0x0b; 32]), "c/templates/s.yaml");
        let mut hex = String::new();
        for byte in key {
            hex.push_str(&format!("{byte:02x}"));
        }
        assert_eq!(
            hex,
            "be1b4b9781f76aa9f68a434a84ce302566c0743f05d2de7ea3484374f027ecd2"
        );
        assert_ne!(
            key,
            stream_key(&RenderSeed::new([0x0b; 32]), "c/templates/t.yaml")
        );
    }

    #[test]
    fn numbers_below_a_bound_stay_below_it_and_the_clock_defaults_to_the_epoch() {
        with_render_context(Some(weft_sdk::testing::render_seed("n")), Some(42), || {
            begin_template("t");
            for bound in [1, 2, 3, 62, 1000] {
                for _ in 0..50 {
                    assert!(below("t", bound).unwrap() < bound);
                }
            }
            assert_eq!(revision_time(), 42);
        });
        assert_eq!(with_render_context(None, None, revision_time), 0);
    }
}
