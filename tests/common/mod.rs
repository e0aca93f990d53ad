pub mod calib;
pub mod contract;
pub mod labcart;
