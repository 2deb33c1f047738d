#pragma once
// Runs body(i) for every i in [0, count) on up to one thread per core, each index once, and
// returns when all are done. Indices are handed out one at a time, so a few slow ones do not hold
// up a thread's fixed share. The first exception a call throws is rethrown here, after the
// threads have stopped taking indices. For work of milliseconds per index: each call starts
// its threads afresh.
#include <cstddef>

#include "core/function_ref.hpp"

namespace infergate {

void parallel_for(std::size_t count, FunctionRef<void(std::size_t)> body);

}  // namespace infergate
