//! Bitonic sorting networks on rayon (the CPU twin of `sortlab_gpu_sorts::bitonic`).
