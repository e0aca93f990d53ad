pub mod calib;
pub mod contract;
pub mod labcart;
pub mod model;
pub mod report;
pub mod tools;
pub mod xvfb;
