#pragma once
/// JSON text of an nlohmann::json or ordered_json value for output files. Strings that come from
/// users' files (paths, names, pickled text) need not be valid UTF-8; nlohmann's dump() throws on
/// them, so every report writes through here, which replaces invalid bytes with U+FFFD.
#include <string>
#include <string_view>

namespace engine {

template <typename Json> std::string jsonText(const Json& j, int indent = 2)
{
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

/// Appends `text` as a JSON string literal, quoted and escaped as jsonText writes it, invalid UTF-8
/// replaced by U+FFFD: for writers that build JSON text directly where building a json value per
/// row would cost more than the row (the project database's bulk writers).
void appendJsonString(std::string& out, std::string_view text);

} // namespace engine
