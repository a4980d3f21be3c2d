// DynLib: a typed dlopen symbol table with versioned fallbacks (STYLE.md,
// "Backends"). Vendor libraries (NVML, ROCm SMI, Ascend DCMI) are never
// linked at build time: a backend opens the first library name that loads,
// then binds each function pointer from a list of symbol names tried newest
// version first ("nvmlInit_v2", then "nvmlInit"). A library that is not
// installed is a normal answer (Errc::not_found), not a failure.
//
// Thread-safety: a DynLib is immutable after open(); lookups may run on any
// thread. Ownership: the handle is dlclose()d when the DynLib is destroyed,
// so function pointers bound from it must not outlive it.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "core/result.h"

namespace rooftop {

class DynLib {
 public:
  // Tries each candidate (a soname such as "libnvidia-ml.so.1" or a path) in
  // order with dlopen(RTLD_NOW | RTLD_LOCAL). Errc::not_found, with every
  // dlerror() in the message, when none loads.
  // `global` (RTLD_GLOBAL) is for libraries whose own plugins resolve
  // symbols from them, such as Open MPI's MCA components.
  static Result<DynLib> open(const std::vector<std::string>& candidates, bool global = false);

  DynLib(DynLib&& other) noexcept;
  DynLib& operator=(DynLib&& other) noexcept;
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;
  ~DynLib();

  // The first of `names` that the library exports, or nullptr. `resolved`
  // (when given) receives the name that matched.
  void* find_raw(std::initializer_list<const char*> names, std::string* resolved = nullptr) const;

  // Binds `slot` to the first of `names` that resolves; false (slot = nullptr)
  // when none does. Use for optional functions.
  template <typename Fn>
  bool bind(Fn*& slot, std::initializer_list<const char*> names, std::string* resolved = nullptr) const {
    slot = reinterpret_cast<Fn*>(find_raw(names, resolved));
    return slot != nullptr;
  }

  // Like bind(), but a missing symbol is an Errc::unsupported error naming
  // every name tried. Use for the functions a backend cannot work without.
  template <typename Fn>
  Result<void> require(Fn*& slot, std::initializer_list<const char*> names) const {
    if (bind(slot, names)) return {};
    return missing(names);
  }

  // The candidate that loaded.
  const std::string& path() const { return path_; }

 private:
  DynLib(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  Result<void> missing(std::initializer_list<const char*> names) const;

  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace rooftop
