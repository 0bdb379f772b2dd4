//! A stable rayon merge sort (the CPU twin of `sortlab_gpu_sorts::merge`).
