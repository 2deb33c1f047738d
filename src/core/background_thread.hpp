#pragma once
// For threads that do bookkeeping beside the I/O threads (writing the access log and the usage
// ledger, refreshing keys): they yield the CPU to request handling when both want the same core.

namespace infergate {

// Names the calling thread (as top -H and /proc show it; at most 15 characters) and lowers its
// scheduling priority (nice +10). Best effort: a failure is ignored.
void become_background_thread(const char* name);

}  // namespace infergate
