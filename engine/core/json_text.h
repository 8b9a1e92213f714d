#pragma once
/// JSON text of an nlohmann::json or ordered_json value for output files. Strings that come from
/// users' files (paths, names, pickled text) need not be valid UTF-8; nlohmann's dump() throws on
/// them, so every report writes through here, which replaces invalid bytes with U+FFFD.
#include <string>

namespace engine {

template <typename Json> std::string jsonText(const Json& j, int indent = 2)
{
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace engine
