// sortlab/thread/key_defines.cuh: the define vocabulary that every kernel file shares (DESIGN.md
// section 2), set by the host through `Defines::key`, `Defines::values` and `Defines::no_values`:
//
//   KEY_T        the key's CUDA type                                   (default: unsigned int)
//   KEY_BITS_T   the unsigned word of the key's ordered bits           (default: KEY_T's word)
//   HAS_VALUES   1 if values follow the keys, else 0                   (default: 0)
//   VALUE_T      the values' word, 4 or 8 bytes, moved as raw bits     (default: unsigned int)
//
// The defaults let a file compile alone (the NVRTC compile test, scripts/sass); the runtime always
// sets what a kernel uses. The order never is a define: it arrives as a kernel argument, the flip
// word of KEY_BITS_T (`Order::flip`; sortlab::flip_bits in key_bits.cuh).
// ------------------------------------------------------------------------------------------------
#pragma once
#include "sortlab/thread/key_bits.cuh"

#ifndef KEY_T
#define KEY_T unsigned int
#endif
#ifndef KEY_BITS_T
#define KEY_BITS_T sortlab::KeyBits<KEY_T>::Bits
#endif
#ifndef HAS_VALUES
#define HAS_VALUES 0
#endif
#ifndef VALUE_T
#define VALUE_T unsigned int
#endif
