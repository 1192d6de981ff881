//! Weft's Kubernetes API simulator.

pub mod api_error;
pub mod apiserver;
pub mod catalog;
pub mod config;
pub mod controllers;
pub mod defaults;
pub mod error;
pub mod faults;
pub mod field_path;
pub mod fieldset;
pub mod http;
pub mod ids;
pub mod kubeconfig;
pub mod managed_fields;
pub mod patch;
pub mod pod_logs;
pub mod resource;
pub mod selector;
pub mod serve;
pub mod simulator;
pub mod ssa;
pub mod store;
pub mod time;
pub mod validate;

pub use config::SimConfig;
pub use error::SimError;
pub use faults::{FaultAction, FaultId, FaultInjector, FaultRule, Verb};
pub use kubeconfig::{kubeconfig_yaml, write_kubeconfig};
pub use serve::ServedSim;
pub use simulator::Simulator;
