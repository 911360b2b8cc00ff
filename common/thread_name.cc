#include "common/thread_name.h"

#include <pthread.h>

#include <cstring>

#include "common/thread_nice.h"

namespace ec {

void NameCurrentThread(const char* name) {
  char cut[16];
  std::strncpy(cut, name, sizeof(cut) - 1);
  cut[sizeof(cut) - 1] = '\0';
  ::pthread_setname_np(::pthread_self(), cut);
}

void NameEveryThread(std::size_t threads, const std::string& name,
                     const std::function<void(std::function<void()>)>& post) {
  // Naming cannot fail (NameCurrentThread ignores a refusal), so neither can this.
  (void)OnEveryThread(threads, post, [&name] {
    NameCurrentThread(name.c_str());
    return Status::OK();
  });
}

}  // namespace ec
