#pragma once
// For threads that do bookkeeping beside the I/O threads (writing the access log and the usage
// ledger, refreshing keys): they yield the CPU to request handling when both want the same core.

namespace infergate {

// Lowers the calling thread's scheduling priority (nice +10). Best effort: a failure is ignored.
void lower_this_thread_priority();

}  // namespace infergate
