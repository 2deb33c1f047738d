#include "core/background_thread.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace infergate {

void become_background_thread(const char* name) {
  (void)pthread_setname_np(pthread_self(), name);
  // On Linux a nice value belongs to the thread whose id is given.
  constexpr int kNice = 10;
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kNice);
}

}  // namespace infergate
