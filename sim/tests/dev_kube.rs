include!("../../tests/sim_kube.rs");
