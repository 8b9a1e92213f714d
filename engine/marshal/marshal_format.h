#pragma once
/// Internal to engine/marshal: the format's constants and the value-decoding helpers the reader
/// uses (names of type bytes and kinds for messages, UTF-8 and Latin-1 text, big-int digits).
#include "engine/marshal/marshal_reader.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engine::marshal::detail {

// co_flags and co_localspluskinds bits.
constexpr uint32_t kCoVarargs = 0x04;
constexpr uint32_t kCoVarkeywords = 0x08;
constexpr uint8_t kFastLocal = 0x20;
constexpr uint8_t kFastCell = 0x40;
constexpr uint8_t kFastFree = 0x80;

/// "TYPE_SHORT_ASCII" for a type byte (FLAG_REF cleared), nullptr for a byte that is no type.
const char* typeName(uint8_t type);
/// "a tuple", "None", ... for messages.
const char* kindName(Kind k);
/// Strict UTF-8 with lone surrogates allowed (what marshal's "surrogatepass" decoding accepts).
/// Returns the index of the first bad byte, or npos.
size_t badUtf8Index(std::string_view s);
/// TYPE_ASCII and friends are read as Latin-1, as CPython does; the document keeps UTF-8.
std::string latin1ToUtf8(std::string_view s);
/// The decimal digits of a magnitude in 15-bit digits (least significant first), O(n^2).
std::string decimalOf(std::vector<uint16_t> digits);

} // namespace engine::marshal::detail
