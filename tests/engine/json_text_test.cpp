// appendJsonString writes what nlohmann's dump writes for valid text, and valid JSON for any bytes.
#include "engine/core/json_text.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <random>

namespace {

std::string jsonQuoted(std::string_view s)
{
    std::string out;
    engine::appendJsonString(out, s);
    return out;
}

} // namespace

TEST(JsonText, AppendJsonStringMatchesDumpOnValidText)
{
    for (std::string s : { std::string(), std::string("plain"), std::string("quote \" backslash \\ slash /"),
             std::string("\b\f\n\r\t\x01\x1f\x7f"), std::string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
             std::string("nul \0 inside", 12) })
        EXPECT_EQ(jsonQuoted(s), nlohmann::json(s).dump()) << s;
}

TEST(JsonText, AppendJsonStringReplacesInvalidUtf8)
{
    EXPECT_EQ(jsonQuoted("a\xff"
                     "b"),
        "\"a\xef\xbf\xbd"
        "b\"");
    EXPECT_EQ(jsonQuoted("\xc3"), "\"\xef\xbf\xbd\""); // truncated sequence
    EXPECT_EQ(jsonQuoted("\xed\xa0\x80"), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""); // surrogate: every byte
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int i = 0; i < 500; ++i) {
        std::string s(size_t(byte(rng) % 40), '\0');
        for (char& c : s)
            c = char(byte(rng));
        const auto parsed = nlohmann::json::parse(jsonQuoted(s), nullptr, false);
        ASSERT_TRUE(parsed.is_string()) << i;
    }
}
