//! Render seeds for native tests: what the server's store would give an app, made up from a label instead, so a
//! test renders a chart that draws random values without a server.

use crate::render::RenderSeed;

/// A fixed seed for `label` (an app's name, say): the same label gives the same seed on every run and machine,
/// different labels give different seeds. Never use it outside tests: anyone who knows the label knows the seed.
pub fn render_seed(label: &str) -> RenderSeed {
    // FNV-1a over the label, then SplitMix64 to spread it over 32 bytes.
    let mut state = label.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut bytes = [0u8; RenderSeed::LEN];
    for chunk in bytes.chunks_mut(8) {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    RenderSeed::new(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_gives_one_seed_and_two_labels_give_two() {
        assert_eq!(render_seed("shop"), render_seed("shop"));
        assert_ne!(render_seed("shop"), render_seed("shop2"));
        assert_eq!(format!("{:?}", render_seed("shop")), "RenderSeed(<secret>)");
    }
}
