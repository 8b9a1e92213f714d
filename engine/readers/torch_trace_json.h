#pragma once
/// Typed access to the JSON of TORCH_TRACE records that never throws (a damaged or hostile log is
/// read, not fatal), and the few Python reprs the reader takes values from. Internal to
/// readers/torch_trace.cpp.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engine::readers::trace::detail {

using json = nlohmann::json;

bool isDigit(char c);
/// False when [ and { nest deeper than 256 outside strings (the parser and printer recurse).
bool jsonDepthOk(std::string_view s);
/// The parsed value, or a discarded one for bad or too deeply nested JSON.
json parseJson(std::string_view s);

std::optional<int64_t> intOf(const json& j); ///< an integer, or a string of digits ("2")
const json* member(const json& o, const char* key); ///< null unless `o` is an object with `key`
std::optional<int64_t> intAt(const json& o, const char* key);
std::string strAt(const json& o, const char* key); ///< "" unless a string
bool boolAt(const json& o, const char* key); ///< false unless true
std::optional<double> numberAt(const json& o, const char* key);
std::string textOf(const json& j); ///< a string as it is, anything else as compact JSON
/// textOf cut to `cap` bytes with "..." appended, never serializing a long list whole.
std::string textOfCapped(const json& j, uint64_t cap);
int clampInt(int64_t v);
/// "cuda:0" from "device(type='cuda', index=0)"; other texts as they are.
std::string deviceText(const std::string& d);
/// describe_tensor's size/stride: the integers into `dims` (cleared when any is symbolic), the text
/// as printed into `text`.
void readDims(const json* j, std::vector<int64_t>& dims, std::string* text);
/// static_input_indices=[0, 2, 3] in the Python repr of ViewAndMutationMeta (may span lines).
std::vector<int> staticInputIndices(const std::string& text);
/// recompile_reasons: a JSON list of strings, a JSON string, or bare lines.
std::vector<std::string> recompileReasons(const std::string& text);

} // namespace engine::readers::trace::detail
