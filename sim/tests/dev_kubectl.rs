include!("../../tests/sim_kubectl.rs");
