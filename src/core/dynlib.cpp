// DynLib: dlopen/dlsym wrapper used by the vendor telemetry backends.
#include "core/dynlib.h"

#include <dlfcn.h>

#include <utility>

namespace rooftop {

Result<DynLib> DynLib::open(const std::vector<std::string>& candidates, bool global) {
  std::string errors;
  for (const std::string& name : candidates) {
    if (name.empty()) continue;
    dlerror();
    if (void* h = dlopen(name.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL))) return DynLib(h, name);
    const char* why = dlerror();
    if (!errors.empty()) errors += "; ";
    errors += why ? why : name + ": not loadable";
  }
  if (errors.empty()) errors = "no library name given";
  return make_error(Errc::not_found, errors);
}

DynLib::DynLib(DynLib&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

DynLib& DynLib::operator=(DynLib&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

DynLib::~DynLib() {
  if (handle_) dlclose(handle_);
}

void* DynLib::find_raw(std::initializer_list<const char*> names, std::string* resolved) const {
  if (!handle_) return nullptr;
  for (const char* n : names) {
    if (void* p = dlsym(handle_, n)) {
      if (resolved) *resolved = n;
      return p;
    }
  }
  return nullptr;
}

Result<void> DynLib::missing(std::initializer_list<const char*> names) const {
  std::string list;
  for (const char* n : names) list += (list.empty() ? "" : ", ") + std::string(n);
  return make_error(Errc::unsupported, path_ + " lacks " + list);
}

}  // namespace rooftop
