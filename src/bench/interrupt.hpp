#pragma once
// A benchmark the user stops (Ctrl-C, SIGTERM) ends as if its plan had ended there: the load
// stops at once, the requests that finished are summarised and written as usual, and those still
// in flight are dropped (cut short by us, they say nothing of the server). Without this a long
// run stopped by hand left nothing at all.
#include <csignal>

namespace infergate::bench {

// SIGINT and SIGTERM: the signals that stop a load. A worker process starts with them blocked.
[[nodiscard]] sigset_t stop_signal_set();

// Installs handlers for SIGINT and SIGTERM that ask running loads to stop. With `again_kills`, a
// second SIGINT ends the process at once, as a user pressing Ctrl-C twice expects; a worker
// process, which its parent may signal too, keeps stopping gracefully however many arrive.
// Unblocks both, for a worker that started with them blocked: one that came meanwhile arrives.
void stop_on_signals(bool again_kills);

// Asks running loads to stop; the handlers call it, and so can tests. Async-signal-safe.
void request_stop(int signal_number) noexcept;

// The signal that asked for a stop, or 0 while none has.
[[nodiscard]] int stop_signal() noexcept;

// Forgets a request to stop (between tests).
void clear_stop() noexcept;

}  // namespace infergate::bench
