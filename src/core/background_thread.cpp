#include "core/background_thread.hpp"

#include <sys/resource.h>
#include <unistd.h>

namespace infergate {

void lower_this_thread_priority() {
  // On Linux a nice value belongs to the thread whose id is given.
  constexpr int kNice = 10;
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kNice);
}

}  // namespace infergate
