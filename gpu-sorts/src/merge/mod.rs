//! Merge sorts: Satish, Harris and Garland's, and a fast merge-path one.
