#pragma once
// Which vector instructions the CPU has, for code that picks its widest form once, when the
// program loads (a check per call costs as much as a block of the work). False off x86-64.

namespace infergate {

inline bool cpu_has_avx2() {
#if defined(__x86_64__)
  __builtin_cpu_init();  // may run from a static initialiser, before the one that would have done it
  return __builtin_cpu_supports("avx2") != 0;
#else
  return false;
#endif
}

inline bool cpu_has_pclmul() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("pclmul") != 0;
#else
  return false;
#endif
}

inline bool cpu_has_avx512bw() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bw") != 0;
#else
  return false;
#endif
}

}  // namespace infergate
