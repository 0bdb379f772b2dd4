// sortlab/thread/types.cuh: fixed-width integer names for NVRTC (which ships no <cstdint>).
#pragma once

typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
