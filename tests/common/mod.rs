pub mod labcart;
