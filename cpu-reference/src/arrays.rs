//! Many small arrays sorted independently (the CPU twin of `sortlab-arraysort`).
