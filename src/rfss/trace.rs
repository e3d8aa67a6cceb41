//! Species-proportion history (the data of the paper's Fig. 3).
