pub mod contract;
pub mod labcart;
