//! Bitonic sorts: the index-mapping network of the bitonic sorting report, the course notes'
//! kernel, and a fast shared-memory one.
