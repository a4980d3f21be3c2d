// Emits an ordered JSON tree as block YAML (yaml-cpp's emitter), quoting
// strings that would otherwise read back as another type ("true", "9400",
// "null"), so a Kubernetes annotation value stays a string.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace rooftop::deploy {

using Tree = nlohmann::ordered_json;

std::string to_yaml(const Tree& t);

}  // namespace rooftop::deploy
